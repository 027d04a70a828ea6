package play

import (
	"encoding/json"

	"vesper/nostr"
)

// addUsage adds one attempt's usage to the move's: every attempt is a real
// call, so the published usage is the sum over the attempts (PROTOCOL.md
// section 8.3). A field no attempt reported stays absent, never zero; a
// malformed usage is left out, not held against the answer.
func (t *moveTry) addUsage(raw json.RawMessage) {
	if len(raw) == 0 {
		return
	}
	u, err := nostr.ParseUsage(string(raw))
	if err != nil || u.Empty() {
		return
	}
	if t.usage == nil {
		t.usage = &nostr.Usage{}
	}
	sum := []**float64{&t.usage.InputTokens, &t.usage.OutputTokens, &t.usage.ReasoningTokens, &t.usage.CostUSD, &t.usage.LatencyMS}
	add := []*float64{u.InputTokens, u.OutputTokens, u.ReasoningTokens, u.CostUSD, u.LatencyMS}
	for i, v := range add {
		if v == nil {
			continue
		}
		if *sum[i] == nil {
			z := 0.0
			*sum[i] = &z
		}
		**sum[i] += *v
	}
}

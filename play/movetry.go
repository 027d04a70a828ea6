package play

import (
	"encoding/json"
	"time"

	"vesper/match"
	"vesper/nostr"
	"vesper/seat"
)

// moveTry is one ply's attempts at a move the seat takes.
type moveTry struct {
	mover    Mover
	start    time.Time
	attempts []Attempt
	refusal  *Refusal // why the last attempt did not count, for the next request
	engineMS int64
	usage    *nostr.Usage // the sum of every attempt's reported usage
}

// refused records an attempt that did not count and why.
func (t *moveTry) refused(at Attempt, why *Refusal) {
	t.attempts = append(t.attempts, at)
	t.refusal = why
}

// addUsage adds one attempt's reported usage (section 8.3): each field is
// the sum of the attempts that reported it, and absent when none did. A
// malformed report adds nothing.
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
	t.usage.InputTokens = addField(t.usage.InputTokens, u.InputTokens)
	t.usage.OutputTokens = addField(t.usage.OutputTokens, u.OutputTokens)
	t.usage.ReasoningTokens = addField(t.usage.ReasoningTokens, u.ReasoningTokens)
	t.usage.CostUSD = addField(t.usage.CostUSD, u.CostUSD)
	t.usage.LatencyMS = addField(t.usage.LatencyMS, u.LatencyMS)
}

func addField(sum, v *float64) *float64 {
	switch {
	case v == nil:
		return sum
	case sum == nil:
		x := *v
		return &x
	}
	x := *sum + *v
	return &x
}

// usageJSON is the summed usage for the record, nil when none.
func (t *moveTry) usageJSON() json.RawMessage {
	if t.usage == nil {
		return nil
	}
	return json.RawMessage(t.usage.JSON())
}

// agentFixable says whether a refusal of the seat is the agent's to fix
// by answering again: a move the rules do not allow, or a promotion that
// names no piece. The others (the game ended meanwhile, not this key's
// turn, not accepted, late) no answer can change: the decision ends.
func agentFixable(rule string) bool {
	return rule == match.IgnIllegal || rule == seat.RulePromotion
}

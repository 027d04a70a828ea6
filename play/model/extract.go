package model

import (
	"bytes"
	"encoding/json"
	"strings"

	"vesper/play"
)

// maxScan bounds how much of an answer's end is searched for its JSON
// block: the block is at the end, and the scan is quadratic at worst.
const maxScan = 64 << 10

// Extract reads the model's answer: the last JSON object in text that
// names a move (or accepts an offer) is the answer; what comes before it is
// the visible thinking. kind and why say what was wrong otherwise, in
// play's Kind* tokens.
func Extract(text string) (ans play.Answer, before string, kind, why string) {
	start := max(0, len(text)-maxScan)
	found, at := "", -1
	for i := strings.IndexByte(text[start:], '{'); i >= 0; {
		pos := start + i
		dec := json.NewDecoder(strings.NewReader(text[pos:]))
		var obj map[string]json.RawMessage
		if dec.Decode(&obj) == nil && (obj["move"] != nil || obj["accept_offer"] != nil) {
			found, at = text[pos:pos+int(dec.InputOffset())], pos
		}
		next := strings.IndexByte(text[pos+1:], '{')
		if next < 0 {
			break
		}
		i = pos + 1 + next - start
	}
	if at < 0 {
		if strings.TrimSpace(text) == "" {
			return play.Answer{}, "", play.KindEmpty, "the model answered nothing"
		}
		return play.Answer{}, text, play.KindUnparsable, `no JSON object naming a "move" in the answer`
	}
	before = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(text[:at]), "```json"))
	before = strings.TrimSpace(strings.TrimSuffix(before, "```"))
	ans, kind, why = play.ParseAnswer(bytes.TrimSpace([]byte(found)))
	// What the model may not set: its usage is measured, its reasoning is
	// what it wrote.
	ans.Usage, ans.Reasoning = nil, ""
	return ans, before, kind, why
}

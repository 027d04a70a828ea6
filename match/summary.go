package match

import (
	"bytes"
	"encoding/json"
)

// Summary is the per-match line of `vesper verify --json` (section 6). The
// field order is the order the protocol prints.
type Summary struct {
	Match      string          `json:"match"`
	Game       string          `json:"game"`
	First      string          `json:"first"`
	Second     *string         `json:"second"`
	Status     Status          `json:"status"`
	Result     *string         `json:"result"`
	Reason     *Reason         `json:"reason"`
	Plies      int             `json:"plies"`
	FinalHash  string          `json:"final_hash"`
	Final      bool            `json:"final"`
	FinalBy    *FinalBy        `json:"final_by"`
	FinalEvent *string         `json:"final_event"`
	Moves      []string        `json:"moves"`
	Ignored    []IgnoredReason `json:"ignored"`
}

// IgnoredReason is one entry of the summary's ignored list.
type IgnoredReason struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// ErrorSummary is the line printed for a file holding no valid match.
type ErrorSummary struct {
	Match *string `json:"match"`
	Error string  `json:"error"`
}

// Summary renders the state as of now (now matters only for open/expired).
func (s *State) Summary(now int64) Summary {
	out := Summary{
		Match: s.Match, Game: s.Kind, First: s.First, Status: s.Status(now),
		Plies: s.Plies(), FinalHash: s.FinalHash(), Final: s.Final,
		Moves: append([]string{}, s.Moves...), Ignored: []IgnoredReason{},
	}
	if s.Accepted {
		out.Second = ptr(s.Second)
	}
	if s.Over {
		out.Result, out.Reason = ptr(s.Result), ptr(s.Reason)
	}
	if s.Final {
		out.FinalBy, out.FinalEvent = ptr(s.FinalBy), ptr(s.FinalEvent)
	}
	for _, i := range s.Ignored {
		out.Ignored = append(out.Ignored, IgnoredReason{ID: i.ID, Reason: i.Reason()})
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// MarshalLine encodes v as one line of JSON without HTML escaping.
func MarshalLine(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte(`{"error":"encoding failed"}` + "\n")
	}
	return b.Bytes()
}

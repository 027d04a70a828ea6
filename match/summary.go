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
	// IgnoredOmitted counts ignored events left out of Ignored by Capped;
	// zero (and absent from the JSON) in a full summary, which is what
	// `vesper verify` prints.
	IgnoredOmitted int `json:"ignored_omitted,omitempty"`
}

// Capped returns the summary with at most max entries of Ignored, the
// latest in fold order (what a player who just posted looks for), and the
// number left out in IgnoredOmitted. The daemon stores capped summaries: a
// match flooded with junk would otherwise carry a summary of hundreds of
// kilobytes, rewritten at every event. max < 1 keeps everything.
func (s Summary) Capped(max int) Summary {
	if max < 1 || len(s.Ignored) <= max {
		return s
	}
	drop := len(s.Ignored) - max
	s.IgnoredOmitted += drop
	s.Ignored = append([]IgnoredReason(nil), s.Ignored[drop:]...)
	return s
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
func (s *State) Summary(now int64) Summary { return s.summary(now, 0) }

// SummaryCapped is Summary(now).Capped(max) without rendering the entries
// it leaves out, for the daemon, which stores one per event it folds.
func (s *State) SummaryCapped(now int64, max int) Summary { return s.summary(now, max) }

func (s *State) summary(now int64, max int) Summary {
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
	ignored := s.Ignored
	if max > 0 && len(ignored) > max {
		out.IgnoredOmitted = len(ignored) - max
		ignored = ignored[len(ignored)-max:]
	}
	for _, i := range ignored {
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

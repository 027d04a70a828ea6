package nostr

import (
	"encoding/json"
	"fmt"
	"strings"

	gn "github.com/nbd-wtf/go-nostr"
)

// RevealEntry is one committed reasoning made public (section 8.2): the
// committing event, its salt and the text.
type RevealEntry struct {
	Event string `json:"event"`
	Salt  string `json:"salt"`
	Text  string `json:"text"`
}

// revealKey is the content object's one key.
const revealKey = "reveal"

// NewReveal builds unsigned kind 4427 events tagged ["g", match] holding
// entries in order, as few as fit: each stays within MaxEventSize once
// signed (section 1's limit binds reveals too). An entry too large for an
// event of its own is an error: it could never be published.
func NewReveal(match string, entries []RevealEntry, createdAt int64) ([]*Event, error) {
	var out []*Event
	var cur []string // the entries' JSON, for the event being filled
	flush := func() {
		if len(cur) > 0 {
			out = append(out, revealEvent(match, cur, createdAt))
			cur = nil
		}
	}
	for _, e := range entries {
		js := entryJSON(e)
		if !revealFits(match, []string{js}, createdAt) {
			return nil, fmt.Errorf("nostr: reveal of %s: the entry alone exceeds %d bytes", e.Event, MaxEventSize)
		}
		if !revealFits(match, append(cur, js), createdAt) {
			flush()
		}
		cur = append(cur, js)
	}
	flush()
	return out, nil
}

func entryJSON(e RevealEntry) string {
	b := []byte(`{"event":`)
	b = AppendString(b, e.Event)
	b = append(b, `,"salt":`...)
	b = AppendString(b, e.Salt)
	b = append(b, `,"text":`...)
	b = AppendString(b, e.Text)
	return string(append(b, '}'))
}

func revealEvent(match string, entries []string, createdAt int64) *Event {
	return &Event{Kind: KindReveal, CreatedAt: Timestamp(createdAt), Tags: Tags{gn.Tag{MatchTag, match}},
		Content: `{"reveal":[` + strings.Join(entries, ",") + `]}`}
}

// revealFits sizes the event as it will be signed: the pubkey, unknown
// before signing, always takes 64 hex digits.
func revealFits(match string, entries []string, createdAt int64) bool {
	ev := revealEvent(match, entries, createdAt)
	ev.PubKey = strings.Repeat("0", 64)
	return !TooLarge(ev)
}

// ParseReveal reads a reveal's content strictly: a JSON object whose
// "reveal" (exact key) is an array of objects, each with "event" (64
// lowercase hex), "salt" (32 lowercase hex) and "text" (a string). Unknown
// keys are ignored, as in every content object of the protocol. One
// malformed entry refuses the whole event: a reveal is written by a
// program, and a half-read one would show a partial record as complete.
func ParseReveal(content string) ([]RevealEntry, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(content), &obj); err != nil || obj == nil {
		return nil, &ParseError{Field: revealKey, Reason: "content is not a JSON object"}
	}
	raw, ok := obj[revealKey]
	if !ok {
		return nil, &ParseError{Field: revealKey, Reason: "missing"}
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil || list == nil {
		return nil, &ParseError{Field: revealKey, Reason: "not an array"}
	}
	out := make([]RevealEntry, 0, len(list))
	for i, item := range list {
		var e map[string]json.RawMessage
		if err := json.Unmarshal(item, &e); err != nil || e == nil {
			return nil, &ParseError{Field: fmt.Sprintf("reveal[%d]", i), Reason: "not an object"}
		}
		id, err := hexField(e, "event", 64)
		if err != nil {
			return nil, &ParseError{Field: fmt.Sprintf("reveal[%d]", i), Reason: err.Error()}
		}
		salt, err := hexField(e, "salt", SaltLen)
		if err != nil {
			return nil, &ParseError{Field: fmt.Sprintf("reveal[%d]", i), Reason: err.Error()}
		}
		text, err := stringField(e, "text")
		if err != nil {
			return nil, &ParseError{Field: fmt.Sprintf("reveal[%d]", i), Reason: err.Error()}
		}
		out = append(out, RevealEntry{Event: id, Salt: salt, Text: text})
	}
	return out, nil
}

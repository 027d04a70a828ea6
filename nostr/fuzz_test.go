package nostr_test

import (
	"testing"

	"vesper/nostr"
)

// FuzzParseEvent: any bytes give an event or a typed error, never a panic,
// and a parsed event marshals back to something that parses the same.
func FuzzParseEvent(f *testing.F) {
	f.Add(nostr.MarshalEvent(signed()))
	f.Add([]byte(`{"id":1}`))
	f.Add([]byte(`{"content":"\ud800"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		ev, err := nostr.ParseEvent(raw)
		if err != nil {
			return
		}
		again, err := nostr.ParseEvent(nostr.MarshalEvent(ev))
		if err != nil || again.ID != ev.ID || again.Content != ev.Content || len(again.Tags) != len(ev.Tags) {
			t.Fatalf("round trip: %v", err)
		}
		_ = nostr.Verify(ev)
		_, _ = nostr.Ply(ev)
		_, _ = nostr.ChallengeTags(ev)
	})
}

func FuzzParseResult(f *testing.F) {
	f.Add(`{"result":"draw","reason":"agreement","plies":4,"final_hash":"ab"}`)
	f.Add(`{"plies":99999999999999999999999}`)
	f.Fuzz(func(t *testing.T, s string) {
		r, err := nostr.ParseResult(s)
		if err != nil {
			return
		}
		back, err := nostr.ParseResult(r.Content())
		if err != nil || !back.Same(r) || back.Reason != r.Reason {
			t.Fatalf("round trip of %q: %v", s, err)
		}
	})
}

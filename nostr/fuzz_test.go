package nostr_test

import (
	"testing"

	"vesper/nostr"
)

// FuzzParseEvent: any bytes give an event or a typed error, never a panic,
// a parsed event marshals back to something that parses the same, and its
// counted size is its serialization's.
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
		if got, want := nostr.SerializedLen(ev), len(ev.Serialize()); got != want {
			t.Fatalf("SerializedLen = %d, want %d", got, want)
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

// FuzzSerializedLen: for any field values, valid UTF-8 or not, the counted
// size is the length of the canonical serialization.
func FuzzSerializedLen(f *testing.F) {
	f.Add("ab", int64(1700000000), 4422, "e2e4", "g", "\"\\\x00\x1f\x7f")
	f.Add("", int64(-1), -1, "h\u00e9llo \u2713 \U0001F600", "\xff\x80", "\b\t\n\v\f\r")
	f.Add("\x01", int64(-9223372036854775808), 0, "<>&\u2028", "", "")
	f.Fuzz(func(t *testing.T, pubkey string, createdAt int64, kind int, content, tag0, tag1 string) {
		ev := &nostr.Event{PubKey: pubkey, CreatedAt: nostr.Timestamp(createdAt), Kind: kind, Content: content,
			Tags: nostr.Tags{{tag0, tag1}, {}, {tag1}}}
		if got, want := nostr.SerializedLen(ev), len(ev.Serialize()); got != want {
			t.Fatalf("%+v: SerializedLen = %d, want %d", ev, got, want)
		}
	})
}

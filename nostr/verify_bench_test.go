package nostr

import (
	"strings"
	"testing"
)

// signedMove is the raw JSON of a signed move event, as a relay sends it.
func signedMove(b *testing.B) []byte {
	b.Helper()
	ev := NewMove("c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00", 12, "e2e4", 1700000000)
	if err := GenerateKey().Sign(ev); err != nil {
		b.Fatal(err)
	}
	return MarshalEvent(ev)
}

// BenchmarkParseAndVerify: one move event from its raw JSON, the work a
// cold rebuild with signature checks does per event before the fold.
func BenchmarkParseAndVerify(b *testing.B) {
	raw := signedMove(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseAndVerify(raw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseEvent: the strict parse alone, of a move event.
func BenchmarkParseEvent(b *testing.B) {
	raw := signedMove(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseEvent(raw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTooLarge: the size check the daemon (match.Stub) and the fold
// make of every event, on a move and on a 4 KiB content that every escape
// rule touches.
func BenchmarkTooLarge(b *testing.B) {
	const unit = "é\"\\\n<>\u2713\x01"
	for _, tc := range []struct{ name, content string }{
		{"move", "e2e4"},
		{"escaped-4KiB", strings.Repeat(unit, 4096/len(unit))},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ev := NewMove(strings.Repeat("ab", 32), 12, tc.content, 1700000000)
			if err := GenerateKey().Sign(ev); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if TooLarge(ev) {
					b.Fatal("too large")
				}
			}
		})
	}
}

// BenchmarkParseEventEscaped: the strict parse of events whose content has
// escapes (every challenge and result does: it is JSON in a JSON string).
func BenchmarkParseEventEscaped(b *testing.B) {
	const unit = "é\"\\\n<>\u2713\x01"
	key := GenerateKey()
	for _, tc := range []struct {
		name string
		ev   *Event
	}{
		{"challenge", NewChallenge(GameChess, strings.Repeat("ab", 32), 1700000000)},
		{"escaped-4KiB", NewMove(strings.Repeat("ab", 32), 12, strings.Repeat(unit, 4096/len(unit)), 1700000000)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			if err := key.Sign(tc.ev); err != nil {
				b.Fatal(err)
			}
			raw := MarshalEvent(tc.ev)
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseEvent(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

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

// escapedEvents are signed events whose content has escapes (every
// challenge and result does: it is JSON in a JSON string), in MarshalEvent's
// spelling, which is how a relay sends them and how the store keeps them.
func escapedEvents(b *testing.B) []namedRaw {
	b.Helper()
	const unit = "é\"\\\n<>\u2713\x01"
	key := GenerateKey()
	evs := []struct {
		name string
		ev   *Event
	}{
		{"challenge", NewChallenge(GameChess, strings.Repeat("ab", 32), 1700000000)},
		{"escaped-4KiB", NewMove(strings.Repeat("ab", 32), 12, strings.Repeat(unit, 4096/len(unit)), 1700000000)},
	}
	out := make([]namedRaw, len(evs))
	for i, tc := range evs {
		if err := key.Sign(tc.ev); err != nil {
			b.Fatal(err)
		}
		out[i] = namedRaw{tc.name, MarshalEvent(tc.ev)}
	}
	return out
}

type namedRaw struct {
	name string
	raw  []byte
}

// benchParse runs parse over each of escapedEvents as a sub-benchmark.
func benchParse(b *testing.B, parse func([]byte) (*Event, error)) {
	for _, tc := range escapedEvents(b) {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.raw)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := parse(tc.raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParseEventEscaped: the strict parse of events with escapes.
func BenchmarkParseEventEscaped(b *testing.B) { benchParse(b, ParseEvent) }

// BenchmarkParseStoredEscaped: the store's read of the same events, which
// ParseStored's one-pass canonical decoder takes.
func BenchmarkParseStoredEscaped(b *testing.B) { benchParse(b, ParseStored) }

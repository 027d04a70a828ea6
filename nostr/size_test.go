package nostr_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"vesper/nostr"
)

// allControls holds every byte below 0x20, each escaped its own way.
var allControls = func() string {
	var b strings.Builder
	for c := range 0x20 {
		b.WriteByte(byte(c))
	}
	return b.String()
}()

// TestSerializedLen: the counted size is the length of the canonical
// serialization (PROTOCOL.md section 1, the 65536-byte cap), for every
// escape rule, multi-byte and invalid UTF-8, and the extreme integers.
func TestSerializedLen(t *testing.T) {
	pk := strings.Repeat("ab", 32)
	tests := []struct {
		name string
		ev   *nostr.Event
	}{
		{"zero event", &nostr.Event{}},
		{"nil tags", &nostr.Event{PubKey: pk, CreatedAt: 1700000000, Kind: nostr.KindMove, Content: "e2e4"}},
		{"empty tag", &nostr.Event{Tags: nostr.Tags{{}, {}, {""}}}},
		{"move", nostr.NewMove(pk, 12, "e2e4", 1700000000)},
		{"challenge", nostr.NewChallenge(nostr.GameChess, pk, 1700000000)},
		{"every control character", &nostr.Event{Content: allControls, Tags: nostr.Tags{{allControls, "x"}}}},
		{"quote and backslash", &nostr.Event{Content: `"\"\\`, Tags: nostr.Tags{{`\`, `"`}}}},
		{"html characters, not escaped", &nostr.Event{Content: "<a href='x'>&amp;</a>"}},
		{"unicode", &nostr.Event{Content: "héllo ✓ 😀 \u2028\u2029 \ufeff", Tags: nostr.Tags{{"t", "日本語"}}}},
		{"invalid UTF-8", &nostr.Event{Content: "a\xffb\xc3\x28\xed\xa0\x80", Tags: nostr.Tags{{"\x80"}}}},
		{"DEL and 0x20", &nostr.Event{Content: "\x7f \x1f"}},
		{"negative created_at and kind", &nostr.Event{CreatedAt: -1, Kind: -42}},
		{"smallest integers", &nostr.Event{CreatedAt: math.MinInt64, Kind: math.MinInt}},
		{"largest integers", &nostr.Event{CreatedAt: math.MaxInt64, Kind: math.MaxInt}},
		{"powers of ten", &nostr.Event{CreatedAt: 1000000000, Kind: 10}},
		{"just under ten", &nostr.Event{CreatedAt: 999999999, Kind: 9}},
		{"at the cap", &nostr.Event{Content: strings.Repeat("x", nostr.MaxEventSize-12)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := nostr.SerializedLen(tt.ev), len(tt.ev.Serialize()); got != want {
				t.Errorf("SerializedLen = %d, want len(Serialize()) = %d", got, want)
			}
		})
	}
}

// TestSerializedLenRandom compares the counted size with the serialization
// on many events built from bytes that every escape rule touches.
func TestSerializedLenRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "Z", "0", " ", `"`, `\`, "/", "\x00", "\b", "\t", "\n", "\v", "\f", "\r",
		"\x1b", "\x1f", "\x7f", "é", "✓", "😀", "\xff", "\x80", "\xed\xa0\x80", "<", ">", "&", "\u2028"}
	str := func() string {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	for i := range 5000 {
		ev := &nostr.Event{PubKey: str(), CreatedAt: nostr.Timestamp(rng.Int64() >> rng.IntN(64)),
			Kind: rng.IntN(70000) - 1000, Content: str()}
		if rng.IntN(2) == 0 {
			ev.CreatedAt = -ev.CreatedAt
		}
		for range rng.IntN(5) {
			tag := make([]string, rng.IntN(4))
			for j := range tag {
				tag[j] = str()
			}
			ev.Tags = append(ev.Tags, tag)
		}
		if got, want := nostr.SerializedLen(ev), len(ev.Serialize()); got != want {
			t.Fatalf("event %d %+v: SerializedLen = %d, want %d", i, ev, got, want)
		}
	}
}

// TestTooLargeAtTheCap: exactly MaxEventSize bytes pass, one more does
// not, however the bytes are spelled.
func TestTooLargeAtTheCap(t *testing.T) {
	for _, unit := range []string{"x", `"`, "\x01", "é"} {
		ev := nostr.NewMove(strings.Repeat("ab", 32), 1, "", 1700000000)
		ev.PubKey, ev.ID, ev.Sig = strings.Repeat("c", 64), strings.Repeat("d", 64), strings.Repeat("e", 128)
		room := nostr.MaxEventSize - len(ev.Serialize())
		escaped := len(nostr.AppendString(nil, unit)) - 2
		n := room / escaped
		ev.Content = strings.Repeat(unit, n) + strings.Repeat("x", room-n*escaped)
		if got := len(ev.Serialize()); got != nostr.MaxEventSize || nostr.TooLarge(ev) {
			t.Errorf("%q: %d bytes, TooLarge %v; want %d bytes, not too large", unit, got, nostr.TooLarge(ev), nostr.MaxEventSize)
		}
		ev.Content += "x"
		if !nostr.TooLarge(ev) {
			t.Errorf("%q: %d bytes not too large", unit, len(ev.Serialize()))
		}
	}
}

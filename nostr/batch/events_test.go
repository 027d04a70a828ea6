package batch

import (
	"strings"
	"testing"

	"vesper/nostr"
)

// TestEvents: signed events pass, and each malformed field makes only its
// own event false, as go-nostr's CheckSignature would say.
func TestEvents(t *testing.T) {
	keys := []nostr.SecretKey{nostr.GenerateKey(), nostr.GenerateKey()}
	const match = "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00"
	signed := func(i int) *nostr.Event {
		ev := nostr.NewMove(match, i, "e2e4", 1700000000+int64(i))
		if err := keys[i%2].Sign(ev); err != nil {
			t.Fatal(err)
		}
		return ev
	}
	mutate := func(f func(*nostr.Event)) *nostr.Event {
		ev := signed(7)
		f(ev)
		return ev
	}
	other := signed(8)
	for _, tc := range []struct {
		name string
		ev   *nostr.Event
		want bool
	}{
		{"signed", signed(1), true},
		{"signed by the other key", signed(2), true},
		{"upper-case hex", mutate(func(e *nostr.Event) {
			e.PubKey, e.ID, e.Sig = strings.ToUpper(e.PubKey), strings.ToUpper(e.ID), strings.ToUpper(e.Sig)
		}), true},
		{"nil", nil, false},
		{"empty", &nostr.Event{}, false},
		{"short pubkey", mutate(func(e *nostr.Event) { e.PubKey = e.PubKey[:62] }), false},
		{"long sig", mutate(func(e *nostr.Event) { e.Sig += "00" }), false},
		{"non-hex id", mutate(func(e *nostr.Event) { e.ID = "zz" + e.ID[2:] }), false},
		{"other event's id", mutate(func(e *nostr.Event) { e.ID = other.ID }), false},
		{"other event's sig", mutate(func(e *nostr.Event) { e.Sig = other.Sig }), false},
		{"changed sig digit", mutate(func(e *nostr.Event) {
			b := []byte(e.Sig)
			if b[100] == '0' {
				b[100] = '1'
			} else {
				b[100] = '0'
			}
			e.Sig = string(b)
		}), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Alone, and in the middle of a batch of good events.
			if got := Events([]*nostr.Event{tc.ev})[0]; got != tc.want {
				t.Errorf("alone: got %v, want %v", got, tc.want)
			}
			evs := []*nostr.Event{}
			for i := range 20 {
				evs = append(evs, signed(100+i))
			}
			evs = append(evs, tc.ev)
			for i := range 20 {
				evs = append(evs, signed(200+i))
			}
			got := Events(evs)
			for i, ok := range got {
				want := true
				if i == 20 {
					want = tc.want
				}
				if ok != want {
					t.Errorf("in a batch, event %d: got %v, want %v", i, ok, want)
				}
			}
		})
	}
	if got := Events(nil); len(got) != 0 {
		t.Errorf("Events(nil) = %v", got)
	}
}

package store

import (
	"testing"

	"vesper/nostr"
)

// Held challenges (issue 30 item 4): kept once each, the newest max kept,
// read back in the order held, released; a store that never held one
// reads as holding none.
func TestHeldChallenges(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	if n, err := s.HeldCount(ctx); err != nil || n != 0 {
		t.Fatalf("a new store holds %d (%v)", n, err)
	}
	if h, err := s.HeldAfter(ctx, 0, "", 10); err != nil || len(h) != 0 {
		t.Fatalf("a new store lists %d held (%v)", len(h), err)
	}
	var evs []*nostr.Event
	for i := int64(0); i < 5; i++ {
		evs = append(evs, signed(t, nostr.GenerateKey(), nostr.NewChallenge(nostr.GameChess, "", 100+i)))
	}
	hold := func(evs []*nostr.Event, at int64, max int) (added, evicted int) {
		in := make([]Incoming, len(evs))
		for i, ev := range evs {
			in[i] = Incoming{Event: ev, Relay: "ws://r"}
		}
		added, evicted, err := s.HoldChallenges(ctx, in, at, max)
		if err != nil {
			t.Fatal(err)
		}
		return added, evicted
	}
	if add, _ := hold(evs[:3], 1000, 4); add != 3 {
		t.Errorf("held %d for the first time, want 3", add)
	}
	// Held again: keeps its first held_at, and is not new.
	if add, _ := hold(evs[:2], 2000, 4); add != 0 {
		t.Errorf("held %d of two held already for the first time, want 0", add)
	}
	if add, ev := hold(evs[3:], 1500, 4); add != 2 || ev != 1 {
		t.Errorf("held %d, evicted %d, want 2 and 1 (5 held, bound 4)", add, ev)
	}
	h, err := s.HeldAfter(ctx, 0, "", 10)
	if err != nil || len(h) != 4 {
		t.Fatalf("%d held (%v), want 4", len(h), err)
	}
	if h[0].HeldAt != 1000 || h[3].HeldAt != 1500 || h[0].Relay != "ws://r" {
		t.Errorf("order or fields: %+v", h)
	}
	page, _ := s.HeldAfter(ctx, h[1].HeldAt, h[1].Event.ID, 10)
	if len(page) != 2 || page[0].Event.ID != h[2].Event.ID {
		t.Errorf("paging after the second: %d held", len(page))
	}
	if err := s.ReleaseHeld(ctx, []string{h[0].Event.ID}); err != nil {
		t.Fatal(err)
	}
	got, _ := s.HeldChallenges(ctx, []string{h[0].Event.ID, h[1].Event.ID})
	if len(got) != 1 || got[0].Event.ID != h[1].Event.ID {
		t.Errorf("after a release: %d of the two held", len(got))
	}
}

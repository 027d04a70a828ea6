package store

import (
	"context"
	"testing"

	"vesper/nostr"
)

// TestHouse reads the house's key and profile from the outbox (issue 17
// items 3 and 5): the profile the daemon publishes is an outbox item, and a
// site build without --daemon must still know the house.
func TestHouse(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	if _, ok, err := s.House(ctx); err != nil || ok {
		t.Fatalf("empty outbox: ok %v, err %v; want no house", ok, err)
	}
	house, other := nostr.GenerateKey(), nostr.GenerateKey()
	add := func(k nostr.SecretKey, duty string, kind int, at int64, content string) *nostr.Event {
		ev := signed(t, k, &nostr.Event{Kind: kind, CreatedAt: nostr.Timestamp(at), Content: content})
		if _, _, err := s.OutboxAdd(ctx, duty, ev); err != nil {
			t.Fatal(err)
		}
		return ev
	}
	// A profile of a key the house no longer uses must not be taken.
	add(other, "profile:"+other.PublicKey()+":v1", nostr.KindProfile, 100, `{"name":"old house"}`)
	add(house, "claim:x", nostr.KindResult, 200, `{}`)
	h, ok, err := s.House(ctx)
	if err != nil || !ok || h.Pubkey != house.PublicKey() || h.Profile != nil {
		t.Fatalf("got %+v, %v, %v; want the house's key and no profile", h, ok, err)
	}
	v1 := add(house, "profile:"+house.PublicKey()+":v1", nostr.KindProfile, 300, `{"name":"vesper house"}`)
	v2 := add(house, "profile:"+house.PublicKey()+":v2", nostr.KindProfile, 400, `{"name":"vesper house 2"}`)
	add(house, "move:y:3", nostr.KindMove, 500, "e2e4")
	h, ok, err = s.House(ctx)
	if err != nil || !ok || h.Pubkey != house.PublicKey() || h.Profile == nil || h.Profile.ID != v2.ID {
		t.Fatalf("got %+v, %v, %v; want the latest profile %s (not %s)", h, ok, err, v2.ID, v1.ID)
	}
}

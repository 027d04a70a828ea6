package daemon

import (
	"fmt"
	"slices"
	"testing"

	"vesper/arbiter"
	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
	"vesper/nostr/relay"
)

// TestRefollowRanksRealPlay (issue 30, item 6): 200 strangers' relay
// lists, each naming relays of its own, fill more than every slot of
// NIP-65 following; the relay of a player whose accepted match has real
// play is followed all the same, and without a change of lists the
// others take turns.
func TestRefollowRanksRealPlay(t *testing.T) {
	var clock int64 = 1_750_000_000
	d := newNode(nil, nostr.SecretKey{}, []string{"wss://home.example"}, arbiter.Config{}, discardLog())
	d.clock = func() int64 { return clock }
	d.maxRelays = 4 // three slots besides the configured relay
	list := func(k nostr.SecretKey, write ...string) *nostr.Event {
		ev, err := nostr.NewRelayList(nil, write, clock-100)
		if err != nil {
			t.Fatal(err)
		}
		return testkit.Sign(k, ev)
	}
	for i := range 200 {
		d.lists.add(list(nostr.GenerateKey(), fmt.Sprintf("wss://j%03d.example", i)))
	}
	alice, bob := testkit.Key("alice"), testkit.Key("bob")
	d.lists.add(list(alice, "wss://zz-alice.example"))
	d.states["m"] = &match.State{First: alice.PublicKey(), Second: bob.PublicKey(), Accepted: true, Moves: []string{"e2e4", "e7e5"}}

	client := relay.New(relay.Config{Relays: d.relays, MaxRelays: d.maxRelays}) // not running: nothing is dialed
	d.refollow(client)
	first := d.lists.followed()
	if len(first) != 3 || !slices.Contains(first, "wss://zz-alice.example") {
		t.Fatalf("followed %v, want alice's relay among 3", first)
	}
	d.refollow(client) // no change, no turn yet
	if got := d.lists.followed(); !slices.Equal(got, first) {
		t.Errorf("followed %v before the turn, want %v", got, first)
	}
	clock += turnEvery
	d.refollow(client)
	got := d.lists.followed()
	if !slices.Contains(got, "wss://zz-alice.example") || slices.Equal(got, first) {
		t.Errorf("after a turn followed %v, want alice's relay and the others' turn (before: %v)", got, first)
	}
}

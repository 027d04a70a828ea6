package follow

import (
	"fmt"
	"slices"
	"testing"

	"vesper/nostr"
)

func relayList(t *testing.T, k nostr.SecretKey, write ...string) *nostr.Event {
	t.Helper()
	ev, err := nostr.NewRelayList(nil, write, 1_750_000_000)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Sign(ev); err != nil {
		t.Fatal(err)
	}
	return ev
}

// crowd is 200 players' relay lists of two relays each that no one else
// names (issue 30, item 6: 400 events filled the 23 slots), and one
// legitimate player whose only relay sorts last.
func crowd(t *testing.T) (lists []*nostr.Event, legit nostr.SecretKey) {
	for i := range 200 {
		lists = append(lists, relayList(t, nostr.GenerateKey(),
			fmt.Sprintf("wss://j%03d-a.example", i), fmt.Sprintf("wss://j%03d-b.example", i)))
	}
	legit = nostr.GenerateKey()
	return append(lists, relayList(t, legit, "wss://zz-legit.example")), legit
}

// TestOutboxPriorityNotCrowdedOut: a player ranked first (the daemon
// ranks the players of accepted matches with real play first) has its
// relay followed however many lists crowd the slots, and each player gets
// one slot before any gets a second.
func TestOutboxPriorityNotCrowdedOut(t *testing.T) {
	lists, legit := crowd(t)
	got := OutboxRelays(lists, OutboxOptions{Max: 23, Priority: func(pk string) int {
		if pk == legit.PublicKey() {
			return 1
		}
		return 0
	}})
	if len(got) != 23 || got[0] != "wss://zz-legit.example" {
		t.Fatalf("followed %v, want the ranked player's relay first of 23", got)
	}
	seen := map[string]bool{}
	for _, u := range got[1:] {
		p := u[:len("wss://j000")]
		if seen[p] {
			t.Errorf("%s: a second relay for a player while others have none", u)
		}
		seen[p] = true
	}
}

// TestOutboxRotate: past the cap, players of equal priority take turns as
// Rotate grows, so every player's relay is followed within a few turns.
func TestOutboxRotate(t *testing.T) {
	lists, _ := crowd(t)
	const slots = 23
	var union []string
	for turn := range (len(lists) + slots - 1) / slots {
		got := OutboxRelays(lists, OutboxOptions{Max: slots, Rotate: turn * slots})
		if len(got) != slots {
			t.Fatalf("turn %d: %d relays, want %d", turn, len(got), slots)
		}
		union = append(union, got...)
	}
	if !slices.Contains(union, "wss://zz-legit.example") {
		t.Fatal("the lone player's relay was never followed in a full rotation")
	}
	slices.Sort(union)
	if n := len(slices.Compact(union)); n < len(lists) {
		t.Errorf("%d players' relays followed over a rotation, want all %d", n, len(lists))
	}
}

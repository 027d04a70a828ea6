package follow_test

import (
	"fmt"

	"vesper/nostr"
	"vesper/nostr/relay/follow"
)

// The outbox model (NIP-65): from players' relay lists, the write relays
// to follow, shared out by player: alice is served by the client's own
// relay (left out of the result) and the shared one, so bob's own relay
// comes before her third.
func ExampleOutboxRelays() {
	alice, bob := nostr.GenerateKey(), nostr.GenerateKey()
	list := func(k nostr.SecretKey, write ...string) *nostr.Event {
		ev, _ := nostr.NewRelayList(nil, write, 1_750_000_000)
		k.Sign(ev)
		return ev
	}
	lists := []*nostr.Event{
		list(alice, "wss://home.example", "wss://alice.example", "wss://shared.example"),
		list(bob, "wss://shared.example", "wss://bob.example"),
	}
	fmt.Println(follow.OutboxRelays(lists, follow.OutboxOptions{PerPlayer: 3, Exclude: []string{"wss://home.example"}}))
	// Output:
	// [wss://shared.example wss://bob.example wss://alice.example]
}

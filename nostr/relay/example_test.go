package relay_test

import (
	"context"
	"fmt"
	"time"

	"vesper/nostr"
	"vesper/nostr/relay"
	"vesper/relayd"
)

func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := relayd.Start(ctx, relayd.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	relays := []string{r.URL()}

	key := nostr.GenerateKey()
	challenge := nostr.NewChallenge(nostr.GameChess, "", time.Now().Unix())
	key.Sign(challenge)
	res := relay.Publish(ctx, relays, challenge, 10*time.Second)
	fmt.Println("accepted by", len(relay.Accepted(res)), "relay")

	got, err := relay.Fetch(ctx, relays, relay.MatchFilters(challenge.ID), 10*time.Second)
	fmt.Println("fetched", len(got), "event:", got[0].Event.Content, err)

	// A client follows the relays: the challenge arrives from the backfill.
	c := relay.New(relay.Config{Relays: relays})
	out := make(chan relay.Received)
	go c.Run(ctx, out)
	rec := <-out
	fmt.Println("received kind", rec.Event.Kind, "from the relay:", rec.Relay == relays[0])
	// Output:
	// accepted by 1 relay
	// fetched 1 event: {"game":"chess"} <nil>
	// received kind 4420 from the relay: true
}

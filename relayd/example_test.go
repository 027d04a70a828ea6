package relayd_test

import (
	"context"
	"fmt"
	"strings"

	"vesper/nostr"
	"vesper/relayd"
)

func Example() {
	r, err := relayd.Start(context.Background(), relayd.Options{MaxLimit: 5})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	key := nostr.GenerateKey()
	ev := nostr.NewChallenge(nostr.GameGomoku, "", 1700000000)
	key.Sign(ev)
	if err := r.Publish(context.Background(), ev); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.HasPrefix(r.URL(), "ws://127.0.0.1:"), r.Count(), r.Has(ev.ID))
	// Output: true 1 true
}

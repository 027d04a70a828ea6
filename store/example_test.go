package store_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"vesper/nostr"
	"vesper/store"
)

// Ingest stores what relays deliver, the fold reads a match back, and the
// cursor says where a restart resumes.
func Example() {
	dir, err := os.MkdirTemp("", "vesper-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	s, err := store.Open(filepath.Join(dir, "vesper.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()

	alice, bob := nostr.GenerateKey(), nostr.GenerateKey()
	challenge := nostr.NewChallenge(nostr.GameGomoku, "", 1_700_000_000)
	_ = alice.Sign(challenge)
	accept := nostr.NewAccept(challenge.ID, alice.PublicKey(), 1_700_000_060)
	_ = bob.Sign(accept)

	for _, relay := range []string{"wss://one.example", "wss://two.example"} {
		for _, ev := range []*nostr.Event{challenge, accept} {
			isNew, err := s.PutEvent(ctx, ev, nostr.MarshalEvent(ev), relay, int64(ev.CreatedAt)+2)
			if err != nil {
				log.Fatal(err)
			}
			fmt.Printf("kind %d from %s: new=%v\n", ev.Kind, relay, isNew)
		}
		if err := s.SetCursor(ctx, relay, int64(accept.CreatedAt)); err != nil {
			log.Fatal(err)
		}
	}

	evs, err := s.MatchEvents(ctx, challenge.ID)
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range evs {
		fmt.Printf("kind %d seen_at %d relays %d\n", e.Event.Kind, e.SeenAt, len(e.Relays))
	}
	cur, _ := s.Cursor(ctx, "wss://one.example")
	fmt.Println("resume from", cur)
	// Output:
	// kind 4420 from wss://one.example: new=true
	// kind 4421 from wss://one.example: new=true
	// kind 4420 from wss://two.example: new=false
	// kind 4421 from wss://two.example: new=false
	// kind 4420 seen_at 1700000002 relays 2
	// kind 4421 seen_at 1700000062 relays 2
	// resume from 1700000060
}

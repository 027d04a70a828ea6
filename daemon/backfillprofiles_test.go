package daemon

import (
	"context"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/nostr"
	"vesper/relayd"
)

// TestBackfillWatchesFinishedMatchPlayers: a match already final when the
// first backfill brings it is not kept in memory, but its players are
// still the site's players: their profiles are fetched on the first run,
// not only after a restart (found by issue 30's combined scenario, where
// the house then never recorded a finished game of two listed bots).
func TestBackfillWatchesFinishedMatchPlayers(t *testing.T) {
	rl := startRelays(t, 1, relayd.Options{})[0]
	alice, bob := testkit.Key("alice"), testkit.Key("bob")
	m := finishedChess(t, alice, bob, time.Now().Unix()-5000)
	ctx := context.Background()
	for _, ev := range append(m.Events, botProfile(alice, time.Now().Unix()-9000), botProfile(bob, time.Now().Unix()-9000)) {
		if err := rl.Publish(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	st := openStore(t)
	running(t, Config{Store: st, Relays: []string{rl.URL()}, Log: discardLog(),
		Run: Options{Tick: 50 * time.Millisecond, FirstSyncWait: time.Second}})
	waitFor(t, "both players' profiles", testkit.Scale(20*time.Second), func() bool {
		for _, k := range []nostr.SecretKey{alice, bob} {
			if _, ok, err := st.Profile(ctx, k.PublicKey()); err != nil || !ok {
				return false
			}
		}
		return true
	})
}

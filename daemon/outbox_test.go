package daemon

import (
	"context"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/nostr"
	"vesper/nostr/relay"
	"vesper/relayd"
)

// TestFollowsPlayersWriteRelays (issue 19, NIP-65): a player who posts its
// moves only to its own write relay, named in its relay list, which the
// daemon was not configured with: the daemon follows that relay and
// verifies the whole match.
func TestFollowsPlayersWriteRelays(t *testing.T) {
	rs := startRelays(t, 2, relayd.Options{})
	home, own := rs[0], rs[1]
	st := openStore(t)
	d := running(t, Config{Store: st, Relays: []string{home.URL()}, Log: discardLog(), AllowPrivateRelays: true,
		Run: Options{Tick: 50 * time.Millisecond, FirstSyncWait: testkit.Scale(time.Second)}})
	ctx := context.Background()
	publish := func(url string, evs ...*nostr.Event) {
		t.Helper()
		for _, ev := range evs {
			if ok := relay.Accepted(relay.Publish(ctx, []string{url}, ev, testkit.Scale(5*time.Second))); len(ok) == 0 {
				t.Fatalf("%s refused %s", url, ev.ID)
			}
		}
	}
	alice, bob := testkit.Key("alice"), testkit.Key("bob")
	list, err := nostr.NewRelayList(nil, []string{own.URL()}, time.Now().Unix()-10)
	if err != nil {
		t.Fatal(err)
	}
	publish(home.URL(), testkit.Sign(alice, list))
	now := time.Now().Unix() - 5
	m := testkit.NewMatch(alice, bob, "chess", "", now)
	m.Accept(now + 1)
	publish(home.URL(), m.Events...)
	// Every move only on alice's own relay, hers and bob's alike.
	moves := []*nostr.Event{m.Move(alice, 1, "e2e4", now+2), m.Move(bob, 2, "e7e5", now+3), m.Move(alice, 3, "g1f3", now+4)}
	publish(own.URL(), moves...)
	waitFor(t, "the moves from alice's write relay", 30*time.Second, func() bool {
		s := d.State(m.ID)
		return s != nil && s.Plies() == len(moves)
	})
	want, _ := nostr.NormalizeRelayURL(own.URL())
	if got := d.lists.followed(); len(got) != 1 || got[0] != want {
		t.Errorf("followed %v, want alice's write relay only", got)
	}
}

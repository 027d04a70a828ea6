package daemon

import (
	"fmt"
	"testing"
	"time"
	"vesper/arbiter"
	"vesper/internal/testkit"
	"vesper/nostr"
)

// TestDaemonPublishesWithAuth is item 8 of issue 13 and the publishing
// bullet of issue 16, end to end: the house's duties (its profile, an
// accept, and 30 fallback rulings, more than one pass signs) reach a relay
// that takes events only after NIP-42 AUTH, all on one connection, the
// client's, authenticated with the house's key.
func TestDaemonPublishesWithAuth(t *testing.T) {
	wr := startWriteAuthRelay(t)
	house, bob, opp := testkit.Key("house"), testkit.Key("bob"), testkit.Key("opponent")
	now := time.Now().Unix()
	const stalledMatches = 30
	var ruled []string
	for i := range stalledMatches {
		// A challenger each: the per-author quota of open challenges would
		// hold some back.
		alice := testkit.Key(fmt.Sprint("alice", i))
		m := stalled(alice, bob, 3*86400+int64(i))
		m.Request(alice, now-61*60)
		wr.put(m.Events...)
		ruled = append(ruled, m.ID)
	}
	open := testkit.Sign(opp, nostr.NewChallenge("gomoku", "", now-31*60))
	wr.put(open)

	st := openStore(t)
	d := running(t, Config{Store: st, Key: house, Relays: []string{wr.url}, Arbiter: arbiter.DefaultConfig(),
		Think: 50 * time.Millisecond, Log: discardLog(), Run: Options{Tick: time.Second}})
	self := house.PublicKey()
	waitFor(t, "the house's profile, accept and rulings on the relay", 60*time.Second, func() bool {
		rulings := wr.by(nostr.KindRuling, self)
		for _, id := range ruled {
			if rulings[id] == 0 {
				return false
			}
		}
		return wr.by(nostr.KindProfile, self)[""] > 0 && wr.by(nostr.KindAccept, self)[open.ID] > 0
	})
	d.Close()

	for _, id := range ruled {
		if n := wr.by(nostr.KindRuling, self)[id]; n != 1 {
			t.Errorf("match %s: %d rulings, want 1", id, n)
		}
	}
	wr.mu.Lock()
	writers, authedHouse, others := len(wr.writers), wr.authed[self], len(wr.authed)
	wr.mu.Unlock()
	if writers != 1 {
		t.Errorf("the daemon's events came on %d connections, want 1 (its client's)", writers)
	}
	if !authedHouse || others != 1 {
		t.Errorf("authenticated: house %v, %d keys in all; want the house's key only", authedHouse, others)
	}
	t.Logf("websocket connections the daemon opened: %d", wr.conns.Load())
}

package relaytest

import (
	"slices"
	"sync"
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/nostr"
	"vesper/nostr/relay/limits"
	"vesper/relayd"
)

// StartRelay starts a relayd relay on loopback, closed at the test's end.
func StartRelay(t testing.TB, opts relayd.Options) *relayd.Relay {
	t.Helper()
	r, err := relayd.Start(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	// A NIP-11 document cached for an earlier relay on this port is not
	// this relay's.
	limits.Forget(r.URL())
	t.Cleanup(func() { r.Close() })
	return r
}

// Sign signs ev with key, failing the test on error.
func Sign(t testing.TB, key nostr.SecretKey, ev *nostr.Event) *nostr.Event {
	t.Helper()
	if err := key.Sign(ev); err != nil {
		t.Fatal(err)
	}
	return ev
}

// Move is a signed move e2e4 at ply of match.
func Move(t testing.TB, key nostr.SecretKey, match string, ply int, createdAt int64) *nostr.Event {
	t.Helper()
	return Sign(t, key, nostr.NewMove(match, ply, "e2e4", createdAt))
}

// Seed stores events on the relay directly, as if published earlier.
func Seed(t testing.TB, r *relayd.Relay, evs ...*nostr.Event) {
	t.Helper()
	for _, ev := range evs {
		if err := r.Publish(t.Context(), ev); err != nil {
			t.Fatal(err)
		}
	}
}

// URL is r's address as clients key it.
func URL(r *relayd.Relay) string { return gn.NormalizeURL(r.URL()) }

var (
	oldMu  sync.Mutex
	oldSeq int64
)

// OldMatch is a challenge and n moves stamped months ago, one second
// apart: events a cursor-based backfill would never ask for again. Each
// call stamps a second of its own, so two matches never share an id.
func OldMatch(t testing.TB, key nostr.SecretKey, n int) []*nostr.Event {
	t.Helper()
	oldMu.Lock()
	oldSeq++
	t0 := time.Now().Add(-90*24*time.Hour).Unix() + oldSeq*1000
	oldMu.Unlock()
	ch := Sign(t, key, nostr.NewChallenge("chess", "", t0))
	evs := []*nostr.Event{ch}
	for i := 1; i <= n; i++ {
		evs = append(evs, Move(t, key, ch.ID, i, t0+int64(i)))
	}
	return evs
}

// IDs are the events' ids, sorted.
func IDs(evs []*nostr.Event) []string {
	var out []string
	for _, ev := range evs {
		out = append(out, ev.ID)
	}
	slices.Sort(out)
	return out
}

package relay

import (
	"context"
	"sync"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/nostr"
	"vesper/nostr/relay/internal/relaytest"
	"vesper/relayd"
)

// TestWatchStoredLiveAndReconnect: Watch delivers what the relay holds,
// then new events live, reports each relay's state, and after the relay
// drops every connection it resubscribes and delivers what came meanwhile.
// A dead relay beside it is reported and does not hold the live one up.
func TestWatchStoredLiveAndReconnect(t *testing.T) {
	r := relaytest.StartRelay(t, relayd.Options{})
	key := nostr.GenerateKey()
	const match = "aa00000000000000000000000000000000000000000000000000000000000000"
	now := time.Now().Unix()
	relaytest.Seed(t, r, relaytest.Move(t, key, match, 1, now-10))
	dead := testkit.DeadRelay(t)

	s := newSink()
	var mu sync.Mutex
	ups, downs := map[string]int{}, map[string]int{}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		Watch(ctx, []string{dead, r.URL()}, MatchFilters(match), WatchOptions{Timeout: testkit.Scale(5 * time.Second), MinBackoff: 10 * time.Millisecond,
			OnStatus: func(relay string, up bool, err error) {
				mu.Lock()
				defer mu.Unlock()
				if up {
					ups[relay]++
				} else {
					downs[relay]++
				}
			}}, s.add)
	}()
	count := func(m map[string]int, k string) int { mu.Lock(); defer mu.Unlock(); return m[k] }
	waitFor(t, "the stored move and a live subscription", func() bool { return s.count(relaytest.URL(r)) == 1 && count(ups, relaytest.URL(r)) == 1 })
	waitFor(t, "the dead relay reported", func() bool { return count(downs, dead) > 0 })
	live := relaytest.Move(t, key, match, 2, now-5)
	relaytest.Seed(t, r, live)
	waitFor(t, "the live move", func() bool { return s.has(relaytest.URL(r), live) })

	r.DropConnections()
	later := relaytest.Move(t, key, match, 3, now-1)
	relaytest.Seed(t, r, later)
	waitFor(t, "the move made while disconnected", func() bool { return s.has(relaytest.URL(r), later) && count(ups, relaytest.URL(r)) >= 2 })
	cancel()
	<-done
}

// TestWatchAuthFirst: on a relay that announces auth_required, Watch
// authenticates with its key before it subscribes.
func TestWatchAuthFirst(t *testing.T) {
	r := relaytest.StartRelay(t, relayd.Options{RequireAuth: true})
	key := nostr.GenerateKey()
	const match = "bb00000000000000000000000000000000000000000000000000000000000000"
	ev := relaytest.Move(t, key, match, 1, time.Now().Unix())
	relaytest.Seed(t, r, ev)
	s := newSink()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		Watch(ctx, []string{r.URL()}, MatchFilters(match), WatchOptions{Timeout: testkit.Scale(5 * time.Second), Key: key}, s.add)
	}()
	waitFor(t, "the event behind AUTH", func() bool { return s.has(relaytest.URL(r), ev) })
	cancel()
	<-done
}

package sim

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/nostr"
	"vesper/nostr/relay"
)

// seeded starts a fleet of one relay behind a proxy with fault f, holding
// n moves stamped in the past (more than a page, so clients page).
func seeded(t *testing.T, f Fault, n int) (*Fleet, []string) {
	t.Helper()
	fleet, err := StartFleet(context.Background(), []RelaySpec{{Name: "x", Fault: f, MaxLimit: 50}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fleet.Close)
	k := testkit.Key("proxy")
	var want []string
	base := time.Now().Unix() - 10000
	for i := range n {
		ev := testkit.Sign(k, nostr.NewMove(fmt.Sprintf("%064x", 7), 1+i%3, "e2e4", base+int64(i)))
		if err := fleet.Publish(context.Background(), 0, ev); err != nil {
			t.Fatal(err)
		}
		want = append(want, ev.ID)
	}
	slices.Sort(want)
	return fleet, want
}

func fetchIDs(t *testing.T, url string, opts relay.FetchOptions) []string {
	t.Helper()
	if opts.Timeout == 0 {
		opts.Timeout = testkit.Scale(30 * time.Second)
	}
	got, err := relay.FetchWith(context.Background(), []string{url}, GameFilters(), opts)
	if err != nil {
		t.Fatalf("fetch through %s: %v", url, err)
	}
	var out []string
	for _, r := range got {
		out = append(out, r.Event.ID)
	}
	slices.Sort(out)
	return out
}

func TestProxyPassesThrough(t *testing.T) {
	fleet, want := seeded(t, Fault{Duplicate: true}, 120) // a proxy that changes nothing the client keeps
	if got := fetchIDs(t, fleet.Members[0].Proxy.URL(), relay.FetchOptions{}); !slices.Equal(got, want) {
		t.Fatalf("fetched %d events through the proxy, want %d", len(got), len(want))
	}
}

func TestProxyDuplicatesAndGarbage(t *testing.T) {
	fleet, want := seeded(t, Fault{Duplicate: true, Garbage: 0.5}, 120)
	var mu sync.Mutex
	rejects := map[string]int{}
	got := fetchIDs(t, fleet.Members[0].Proxy.URL(), relay.FetchOptions{OnReject: func(_, reason string) {
		mu.Lock()
		rejects[reason]++
		mu.Unlock()
	}})
	if !slices.Equal(got, want) {
		t.Fatalf("fetched %d events, want %d", len(got), len(want))
	}
	st := fleet.Members[0].Proxy.Stats()
	if st.Duplicated < int64(len(want)) || st.Garbage == 0 {
		t.Fatalf("stats %+v: want every event doubled and some garbage", st)
	}
	mu.Lock()
	defer mu.Unlock()
	if rejects[relay.RejectBadID]+rejects[relay.RejectBadSignature]+rejects[relay.RejectMalformed] == 0 {
		t.Fatalf("the client rejected nothing (%v): the garbage did not reach it", rejects)
	}
}

func TestProxyDelays(t *testing.T) {
	const delay = 300 * time.Millisecond
	fleet, want := seeded(t, Fault{DelayMin: delay, DelayMax: delay + 100*time.Millisecond}, 60)
	url := fleet.Members[0].Proxy.URL()
	start := time.Now()
	if got := fetchIDs(t, url, relay.FetchOptions{}); !slices.Equal(got, want) {
		t.Fatalf("fetched %d events, want %d", len(got), len(want))
	}
	// A round trip crosses the proxy twice: the request and the answer.
	if took := time.Since(start); took < 2*delay {
		t.Fatalf("fetch took %v through a proxy delaying %v each way", took, delay)
	}
	// Writes go through too.
	ev := testkit.Sign(testkit.Key("late"), nostr.NewMove(fmt.Sprintf("%064x", 8), 1, "d2d4", time.Now().Unix()))
	if ok := relay.Accepted(relay.Publish(context.Background(), []string{url}, ev, testkit.Scale(10*time.Second))); len(ok) != 1 {
		t.Fatal("publishing through the delaying proxy failed")
	}
	if !fleet.Members[0].Relay.Has(ev.ID) {
		t.Fatal("the relay does not have the event published through the proxy")
	}
}

// TestProxyDrops: a client following a relay whose connections die every
// few hundred milliseconds still gets every event published meanwhile.
func TestProxyDrops(t *testing.T) {
	fleet, _ := seeded(t, Fault{Drop: 300 * time.Millisecond}, 0)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(30*time.Second))
	defer cancel()
	c := relay.New(relay.Config{Relays: []string{fleet.Members[0].Proxy.URL()},
		MinBackoff: 20 * time.Millisecond, MaxBackoff: 100 * time.Millisecond})
	out := make(chan relay.Received, 100)
	go c.Run(ctx, out)

	k := testkit.Key("dropped")
	go func() {
		for i := range 40 {
			ev := testkit.Sign(k, nostr.NewMove(fmt.Sprintf("%064x", 9), i+1, "e2e4", time.Now().Unix()))
			if err := fleet.Publish(ctx, 0, ev); err != nil {
				t.Error(err)
			}
			time.Sleep(50 * time.Millisecond) // pacing, not synchronisation: spread over several connections
		}
	}()
	got := map[string]bool{}
	for len(got) < 40 {
		select {
		case r := <-out:
			got[r.Event.ID] = true
		case <-ctx.Done():
			t.Fatalf("got %d of 40 events through a dropping proxy", len(got))
		}
	}
	if st := fleet.Members[0].Proxy.Stats(); st.Drops == 0 {
		t.Fatalf("stats %+v: nothing was dropped", st)
	}
}

func TestFleetDownQueuesAndComesBack(t *testing.T) {
	fleet, err := StartFleet(context.Background(), []RelaySpec{{Name: "down"}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer fleet.Close()
	m := fleet.Members[0]
	if err := fleet.setDown(m, true); err != nil {
		t.Fatal(err)
	}
	ev := testkit.Sign(testkit.Key("q"), nostr.NewChallenge(nostr.GameChess, "", time.Now().Unix()))
	if err := fleet.Publish(context.Background(), 0, ev); err != nil {
		t.Fatal(err)
	}
	if m.Relay.Has(ev.ID) {
		t.Fatal("a relay that is down stored an event")
	}
	if _, err := relay.Fetch(context.Background(), fleet.DirectURLs(), GameFilters(), time.Second); err == nil {
		t.Fatal("a relay that is down answered")
	}
	if err := fleet.Settle(); err != nil {
		t.Fatal(err)
	}
	if !m.Relay.Has(ev.ID) {
		t.Fatal("the queued event was not stored when the relay came back")
	}
	if _, ok := fleet.SeenAt()[ev.ID]; !ok {
		t.Fatal("no seen_at for the queued event")
	}
}

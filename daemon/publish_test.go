package daemon

import (
	"context"
	"fmt"
	"io"
	"log"
	"maps"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fiatjaf/eventstore"
	"github.com/fiatjaf/khatru"
	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/testkit"
	"vesper/internal/testrelay"
	"vesper/nostr"
	"vesper/nostr/relay"
	"vesper/relayd"
)

// writeAuthRelay serves reads to anyone and takes events only over an
// authenticated connection, sending its challenge when it refuses one, as
// public relays that require AUTH for writes do. It records which
// connections sent events and who authenticated. (relayd's RequireAuth
// refuses reads too and counts no connections.)
type writeAuthRelay struct {
	url     string
	conns   atomic.Int64
	mu      sync.Mutex
	events  map[string]*gn.Event
	arrived []*gn.Event // stored events in the order they came
	writers map[*khatru.WebSocket]bool
	authed  map[string]bool
}

func startWriteAuthRelay(t *testing.T) *writeAuthRelay {
	t.Helper()
	wr := &writeAuthRelay{events: map[string]*gn.Event{}, writers: map[*khatru.WebSocket]bool{}, authed: map[string]bool{}}
	kh := khatru.NewRelay()
	kh.Log = log.New(io.Discard, "", 0)
	// Stored, then answered as a duplicate, which khatru acknowledges with
	// OK true but does not broadcast: its live broadcast walks the listener
	// list without a lock, a data race under -race (relayd replaces it;
	// the tests here need no live delivery).
	save := func(_ context.Context, ev *gn.Event) error { wr.put(ev); return eventstore.ErrDupEvent }
	kh.StoreEvent = append(kh.StoreEvent, save)
	kh.ReplaceEvent = append(kh.ReplaceEvent, save)
	kh.QueryEvents = append(kh.QueryEvents, wr.query)
	kh.OnConnect = append(kh.OnConnect, func(context.Context) { wr.conns.Add(1) })
	kh.RejectEvent = append(kh.RejectEvent, func(ctx context.Context, _ *gn.Event) (bool, string) {
		who := khatru.GetAuthed(ctx)
		wr.mu.Lock()
		wr.writers[khatru.GetConnection(ctx)] = true
		if who != "" {
			wr.authed[who] = true
		}
		wr.mu.Unlock()
		if who == "" {
			khatru.RequestAuth(ctx)
			return true, "auth-required: authenticate to publish here"
		}
		return false, ""
	})
	wr.url = testrelay.Serve(t, kh)
	return wr
}

func (wr *writeAuthRelay) put(evs ...*gn.Event) {
	wr.mu.Lock()
	defer wr.mu.Unlock()
	for _, ev := range evs {
		wr.events[ev.ID] = ev
		wr.arrived = append(wr.arrived, ev)
	}
}

// query serves the newest matching events first, within the filter's limit.
func (wr *writeAuthRelay) query(_ context.Context, f gn.Filter) (chan *gn.Event, error) {
	if f.LimitZero {
		return testrelay.Chan(nil), nil
	}
	wr.mu.Lock()
	defer wr.mu.Unlock()
	return testrelay.Chan(testrelay.Newest(maps.Values(wr.events), f, f.Limit)), nil
}

// by counts the stored events of kind by author, per match (the g tag).
func (wr *writeAuthRelay) by(kind int, author string) map[string]int {
	wr.mu.Lock()
	defer wr.mu.Unlock()
	out := map[string]int{}
	for _, ev := range wr.events {
		if ev.Kind == kind && ev.PubKey == author {
			ref := ""
			if refs := nostr.MatchRefs(ev); len(refs) > 0 {
				ref = refs[0]
			}
			out[ref]++
		}
	}
	return out
}

// runClient runs a relay client for the node's relays, as the daemon does,
// until the test ends.
func runClient(t *testing.T, n *Daemon) *relay.Client {
	t.Helper()
	c := relay.New(relay.Config{Relays: n.relays, Key: n.key, MinBackoff: 10 * time.Millisecond,
		MaxBackoff: 100 * time.Millisecond, DialTimeout: testkit.Scale(2 * time.Second)})
	ctx, cancel := context.WithCancel(context.Background())
	recv := make(chan relay.Received, 64)
	done := make(chan struct{})
	go func() { c.Run(ctx, recv); close(done) }()
	go func() {
		for {
			select {
			case <-recv:
			case <-ctx.Done():
				return
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return c
}

// TestPublishPendingOnClientConnections is the outbox on the client's
// connections: 50 items of 5 matches go to an AUTH-requiring relay over the
// one connection of the client, each match's in the order recorded, and
// are done although the other relay is down; an item no relay took stays
// pending and goes out at a later pass, once a relay is back.
func TestPublishPendingOnClientConnections(t *testing.T) {
	ctx := context.Background()
	house := testkit.Key("house")
	wr := startWriteAuthRelay(t)
	down := startRelays(t, 1, relayd.Options{})[0]
	down.Stop()
	n := testNode(t, house)
	n.relays = []string{wr.url, down.URL()}
	client := runClient(t, n)

	const items, matches = 50, 5
	now := time.Now().Unix()
	var res []Sent
	// Two passes: the first item alone, which answers the AUTH, then the
	// rest in parallel queues. khatru v0.19.1 sets a connection's AUTH
	// pubkey without a lock, so an EVENT it handles while an AUTH is in
	// flight is a data race in the relay under -race.
	for _, batch := range [][2]int{{0, 1}, {1, items}} {
		for i := batch[0]; i < batch[1]; i++ {
			ev := testkit.Sign(house, nostr.NewMove(fmt.Sprint("match", i%matches), i/matches+1, "e2e4", now))
			if _, _, err := n.st.OutboxAdd(ctx, fmt.Sprint("duty", i), ev); err != nil {
				t.Fatal(err)
			}
		}
		got, err := n.publishPendingVia(ctx, client, testkit.Scale(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		res = append(res, got...)
	}
	if len(res) != items {
		t.Fatalf("%d results, want %d", len(res), items)
	}
	want := gn.NormalizeURL(wr.url)
	for _, d := range res {
		if d.Error != "" || len(d.SentTo) != 1 || d.SentTo[0] != want {
			t.Fatalf("%s: sent to %v, error %q; want %s only", d.Duty, d.SentTo, d.Error, want)
		}
	}
	if pending, _ := n.st.OutboxPending(ctx); len(pending) != 0 {
		t.Fatalf("%d items still pending, want none", len(pending))
	}
	wr.mu.Lock()
	arrived, writers, conns := wr.arrived, len(wr.writers), wr.conns.Load()
	wr.mu.Unlock()
	if len(arrived) != items || writers != 1 || conns != 1 {
		t.Errorf("relay got %d events on %d connections (%d opened), want %d on 1 (1 opened)", len(arrived), writers, conns, items)
	}
	last := map[string]int{}
	for _, ev := range arrived {
		m := nostr.MatchRefs(ev)[0]
		ply, err := nostr.Ply(ev)
		if err != nil || ply != last[m]+1 {
			t.Fatalf("%s: ply %d (%v) arrived after ply %d", m, ply, err, last[m])
		}
		last[m] = ply
	}

	// Every relay down: the item stays pending, then goes out once the
	// relay that was down is back.
	wrDown := gn.NormalizeURL(down.URL())
	n.relays = []string{down.URL()}
	alone := runClient(t, n)
	late := testkit.Sign(house, nostr.NewMove("late", 1, "e2e4", now))
	if _, _, err := n.st.OutboxAdd(ctx, "late", late); err != nil {
		t.Fatal(err)
	}
	if res, err := n.publishPendingVia(ctx, alone, testkit.Scale(5*time.Second)); err != nil || len(res) != 1 || res[0].Error == "" {
		t.Fatalf("with the relay down: %+v, %v; want one failed item", res, err)
	}
	if it, ok, _ := n.st.OutboxGet(ctx, "late"); !ok || it.Done || it.Attempts != 1 {
		t.Fatalf("after the failure: %+v, want pending with one attempt", it)
	}
	if err := down.Restart(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the client to reconnect", time.Minute, func() bool { return alone.Connected() == 1 })
	res, err := n.publishPendingVia(ctx, alone, testkit.Scale(5*time.Second))
	if err != nil || len(res) != 1 || res[0].Error != "" || len(res[0].SentTo) != 1 || res[0].SentTo[0] != wrDown {
		t.Fatalf("retry: %+v, %v; want sent to %s", res, err, wrDown)
	}
	if !down.Has(late.ID) {
		t.Error("the relay that came back does not have the item")
	}
}

// stalled is a match whose second player's clock ran out long ago.
func stalled(a, b nostr.SecretKey, ago int64) *testkit.Match {
	t := time.Now().Unix() - ago
	m := testkit.NewMatch(a, b, "gomoku", "", t)
	m.Accept(t + 10)
	m.Move(a, 1, "h8", t+20)
	return m
}

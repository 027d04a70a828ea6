package relay

import (
	"context"
	"errors"
	"io"
	"log"
	"maps"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fiatjaf/eventstore"
	"github.com/fiatjaf/khatru"
	gn "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip11"

	"vesper/internal/testkit"
	"vesper/internal/testrelay"
	"vesper/nostr"
	"vesper/nostr/relay/internal/relaytest"
	"vesper/relayd"
)

// authRelay is a khatru relay that serves reads to anyone and takes events
// only from authenticated clients, sending its challenge when it refuses
// one (as public relays that require AUTH do), and that counts websocket
// connections. relayd's RequireAuth also refuses reads and never counts
// connections.
type authRelay struct {
	url      string
	conns    atomic.Int64 // websocket connections ever opened
	mu       sync.Mutex
	events   map[string]*gn.Event
	writers  map[*khatru.WebSocket]bool // connections that sent an EVENT
	authedAs map[string]bool            // pubkeys that authenticated
}

func startAuthRelay(t *testing.T) *authRelay {
	t.Helper()
	ar := &authRelay{events: map[string]*gn.Event{}, writers: map[*khatru.WebSocket]bool{}, authedAs: map[string]bool{}}
	kh := khatru.NewRelay()
	kh.Log = log.New(io.Discard, "", 0)
	kh.StoreEvent = append(kh.StoreEvent, ar.save)
	kh.ReplaceEvent = append(kh.ReplaceEvent, ar.save)
	kh.QueryEvents = append(kh.QueryEvents, ar.query)
	kh.OnConnect = append(kh.OnConnect, func(context.Context) { ar.conns.Add(1) })
	kh.RejectEvent = append(kh.RejectEvent, func(ctx context.Context, _ *gn.Event) (bool, string) {
		ws := khatru.GetConnection(ctx)
		ar.mu.Lock()
		ar.writers[ws] = true
		ar.mu.Unlock()
		who := khatru.GetAuthed(ctx)
		if who == "" {
			khatru.RequestAuth(ctx)
			return true, "auth-required: publish after authenticating"
		}
		ar.mu.Lock()
		ar.authedAs[who] = true
		ar.mu.Unlock()
		return false, ""
	})
	kh.OverwriteRelayInformation = append(kh.OverwriteRelayInformation,
		func(_ context.Context, _ *http.Request, info nip11.RelayInformationDocument) nip11.RelayInformationDocument {
			info.Limitation = &nip11.RelayLimitationDocument{AuthRequired: true}
			return info
		})
	ar.url = gn.NormalizeURL(testrelay.Serve(t, kh))
	return ar
}

// save stores ev and answers as for a duplicate, which khatru acknowledges
// with OK true but does not broadcast: its live broadcast walks the
// listener list without a lock, a data race under -race (relayd replaces
// it; the tests here need no live delivery).
func (ar *authRelay) save(_ context.Context, ev *gn.Event) error {
	ar.mu.Lock()
	ar.events[ev.ID] = ev
	ar.mu.Unlock()
	return eventstore.ErrDupEvent
}

// query serves the newest matching events first, within the filter's limit.
func (ar *authRelay) query(_ context.Context, f gn.Filter) (chan *gn.Event, error) {
	if f.LimitZero {
		return testrelay.Chan(nil), nil
	}
	ar.mu.Lock()
	defer ar.mu.Unlock()
	return testrelay.Chan(testrelay.Newest(maps.Values(ar.events), f, f.Limit)), nil
}

func (ar *authRelay) has(id string) bool {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	return ar.events[id] != nil
}

func (ar *authRelay) writerConns() int {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	return len(ar.writers)
}

func (ar *authRelay) authed(pubkey string) bool {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	return ar.authedAs[pubkey]
}

// TestClientPublishOneConnectionWithAuth is item 8 of issue 13: 50 outbox
// items, several in flight at once as the daemon's queues send them, go out
// on the client's one connection per relay, AUTH is answered when the
// relay asks, and every event is accepted.
func TestClientPublishOneConnectionWithAuth(t *testing.T) {
	relays := []*authRelay{startAuthRelay(t), startAuthRelay(t)}
	key := nostr.GenerateKey()
	cfg := fastConfig(relays[0].url, relays[1].url)
	cfg.Key = key
	c, _ := run(t, cfg)

	const items, queues = 50, 5
	evs := make([]*nostr.Event, items)
	now := time.Now().Unix()
	for i := range evs {
		evs[i] = relaytest.Move(t, key, strconvI(int64(i%queues)), i/queues+1, now)
	}
	results := make([][]PublishResult, items)
	// The first goes alone: khatru v0.19.1 sets a connection's AUTH pubkey
	// without a lock, so an EVENT it handles while an AUTH is in flight is
	// a data race in the relay under -race (a real relay has its own
	// locking). The rest go in parallel queues, as the daemon sends them.
	results[0] = c.Publish(t.Context(), evs[0], testkit.Scale(5*time.Second))
	var wg sync.WaitGroup
	for q := range queues {
		wg.Go(func() {
			for i := q; i < items; i += queues {
				if i > 0 {
					results[i] = c.Publish(t.Context(), evs[i], testkit.Scale(5*time.Second))
				}
			}
		})
	}
	wg.Wait()
	for i, res := range results {
		if got := Accepted(res); len(got) != 2 {
			t.Fatalf("item %d: accepted by %v, want both relays: %+v", i, got, res)
		}
	}
	for i, r := range relays {
		for _, ev := range evs {
			if !r.has(ev.ID) {
				t.Fatalf("relay %d lacks %s", i, ev.ID)
			}
		}
		if got := r.conns.Load(); got != 1 {
			t.Errorf("relay %d: %d websocket connections, want 1 (the client's)", i, got)
		}
		if got := r.writerConns(); got != 1 {
			t.Errorf("relay %d: events came on %d connections, want 1", i, got)
		}
		if !r.authed(key.PublicKey()) {
			t.Errorf("relay %d: no write authenticated as the client's key", i)
		}
	}
}

// TestClientPublishNIP11 checks that the write restrictions of the relay's
// NIP-11 document still apply on the client's connections: with no key to
// answer AUTH, an auth_required relay is skipped without a write.
func TestClientPublishNIP11(t *testing.T) {
	ar := startAuthRelay(t)
	c, _ := run(t, fastConfig(ar.url))
	ev := relaytest.Move(t, nostr.GenerateKey(), "m", 1, time.Now().Unix())
	res := c.Publish(t.Context(), ev, testkit.Scale(5*time.Second))
	if len(res) != 1 || !errors.Is(res[0].Err, ErrWriteRestricted) || res[0].OK {
		t.Fatalf("got %+v, want skipped with ErrWriteRestricted", res)
	}
	if got := ar.writerConns(); got != 0 {
		t.Errorf("%d connections sent an EVENT, want none", got)
	}
}

// TestClientPublishRelayDown: a relay that is down is skipped at once (the
// items go to the other relay), an item no relay took is published again
// once a relay is back, and the client's reconnect, not the publication,
// is what dials.
func TestClientPublishRelayDown(t *testing.T) {
	up := relaytest.StartRelay(t, relayd.Options{})
	down := relaytest.StartRelay(t, relayd.Options{})
	down.Stop()
	key := nostr.GenerateKey()
	c, _ := run(t, fastConfig(up.URL(), down.URL()))
	now := time.Now().Unix()
	for i := range 10 {
		ev := relaytest.Move(t, key, "m", i+1, now)
		t0 := time.Now()
		timeout := testkit.Scale(20 * time.Second)
		res := c.Publish(t.Context(), ev, timeout)
		if got := Accepted(res); len(got) != 1 || got[0] != relaytest.URL(up) {
			t.Fatalf("item %d accepted by %v, want only %s: %+v", i, got, relaytest.URL(up), res)
		}
		if !errors.Is(res[1].Err, ErrNotConnected) {
			t.Fatalf("item %d: the relay that is down answered %+v, want ErrNotConnected", i, res[1])
		}
		if d := time.Since(t0); d > timeout/2 {
			t.Fatalf("item %d took %v: a relay that is down must not hold a publication for its timeout", i, d)
		}
	}
	if got := up.Connections(); got != 1 {
		t.Errorf("the relay that is up has %d connections, want 1", got)
	}

	up.Stop()
	waitFor(t, "the client to see both relays down", func() bool { return c.Connected() == 0 })
	late := relaytest.Move(t, key, "late", 1, now)
	if got := Accepted(c.Publish(t.Context(), late, testkit.Scale(5*time.Second))); len(got) != 0 {
		t.Fatalf("accepted by %v with every relay down", got)
	}
	if err := down.Restart(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the client to reconnect", func() bool { return c.Connected() == 1 })
	res := c.Publish(t.Context(), late, testkit.Scale(5*time.Second))
	if got := Accepted(res); len(got) != 1 || got[0] != relaytest.URL(down) {
		t.Fatalf("retry accepted by %v, want %s: %+v", got, relaytest.URL(down), res)
	}
	if !down.Has(late.ID) {
		t.Error("the relay that came back does not have the retried event")
	}
}

// TestClientPublishAnswers: on the shared connection, "duplicate:" counts
// as accepted and "rate-limited:" is waited out within the timeout.
func TestClientPublishAnswers(t *testing.T) {
	r := relaytest.StartRelay(t, relayd.Options{DuplicateNotOK: true})
	c, _ := run(t, fastConfig(r.URL()))
	key := nostr.GenerateKey()
	now := time.Now().Unix()

	dup := relaytest.Move(t, key, "m", 1, now)
	relaytest.Seed(t, r, dup)
	res := c.Publish(t.Context(), dup, testkit.Scale(5*time.Second))[0]
	if !res.OK || !strings.HasPrefix(res.Message, "duplicate:") {
		t.Errorf("duplicate: got %+v, want accepted with the relay's duplicate: answer", res)
	}

	r.SetRejectWrites("rate-limited: slow down")
	slow := relaytest.Move(t, key, "m", 2, now)
	done := make(chan PublishResult, 1)
	writes := r.Writes()
	go func() { done <- c.Publish(t.Context(), slow, testkit.Scale(10*time.Second))[0] }()
	waitFor(t, "the first, refused attempt", func() bool { return r.Writes() > writes })
	r.SetRejectWrites("")
	if res := <-done; !res.OK {
		t.Fatalf("rate-limited: got %+v, want accepted after backing off", res)
	}
	if got := r.Connections(); got != 1 {
		t.Errorf("%d connections, want 1", got)
	}
}

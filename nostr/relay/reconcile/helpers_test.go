package reconcile

import (
	"fmt"
	"net"
	"sync"
	"testing"
	"time"
	"vesper/internal/testrelay"
	"vesper/nostr/relay/internal/wire"
	"vesper/nostr/relay/limits"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/nostr"
	"vesper/relayd"
)

func startRelay(t *testing.T, opts relayd.Options) *relayd.Relay {
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

// deadURL is a loopback address nothing listens on.
func deadURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "ws://" + addr
}

func sign(t *testing.T, key nostr.SecretKey, ev *nostr.Event) *nostr.Event {
	t.Helper()
	if err := key.Sign(ev); err != nil {
		t.Fatal(err)
	}
	return ev
}

func move(t *testing.T, key nostr.SecretKey, match string, ply int, createdAt int64) *nostr.Event {
	return sign(t, key, nostr.NewMove(match, ply, "e2e4", createdAt))
}

// seed stores events on the relay directly, as if published earlier.
func seed(t *testing.T, r *relayd.Relay, evs ...*nostr.Event) {
	t.Helper()
	for _, ev := range evs {
		if err := r.Publish(t.Context(), ev); err != nil {
			t.Fatal(err)
		}
	}
}

// waitFor polls cond until it holds; no sleeping for synchronisation.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// sink records what a client delivers.
type sink struct {
	mu      sync.Mutex
	got     map[string]map[string]wire.Received // relay -> id -> event
	total   int
	rejects map[string]int // reason -> count
}

func newSink() *sink {
	return &sink{got: make(map[string]map[string]wire.Received), rejects: make(map[string]int)}
}

func (s *sink) add(r wire.Received) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.got[r.Relay] == nil {
		s.got[r.Relay] = make(map[string]wire.Received)
	}
	s.got[r.Relay][r.Event.ID] = r
	s.total++
}

func (s *sink) onReject(_, reason string) {
	s.mu.Lock()
	s.rejects[reason]++
	s.mu.Unlock()
}

func (s *sink) rejected(reason string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rejects[reason]
}

func (s *sink) has(relay string, evs ...*nostr.Event) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ev := range evs {
		if _, ok := s.got[relay][ev.ID]; !ok {
			return false
		}
	}
	return true
}

func (s *sink) get(relay, id string) (wire.Received, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.got[relay][id]
	return r, ok
}

func (s *sink) count(relay string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.got[relay])
}

func url(r *relayd.Relay) string { return gn.NormalizeURL(r.URL()) }

func strconvI(v int64) string { return fmt.Sprint(v) }

// startStrfry is testrelay.Strfry with no NIP-11 document cached for its
// address (an earlier relay on the same port had another).
func startStrfry(t *testing.T, opts testrelay.StrfryOptions) string {
	t.Helper()
	u := testrelay.Strfry(t, opts)
	limits.Forget(u)
	return u
}

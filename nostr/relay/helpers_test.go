package relay

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/nostr"
)

// waitFor polls cond until it holds, failing the test after 30 s, scaled.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testkit.WaitFor(t, what, 30*time.Second, cond)
}

// sink records what a client delivers.
type sink struct {
	mu      sync.Mutex
	got     map[string]map[string]Received // relay -> id -> event
	total   int
	rejects map[string]int // reason -> count
}

func newSink() *sink {
	return &sink{got: make(map[string]map[string]Received), rejects: make(map[string]int)}
}

func (s *sink) add(r Received) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.got[r.Relay] == nil {
		s.got[r.Relay] = make(map[string]Received)
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

func (s *sink) get(relay, id string) (Received, bool) {
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

// fastConfig keeps reconnects and pings quick for loopback tests.
func fastConfig(relays ...string) Config {
	return Config{
		Relays:       relays,
		MinBackoff:   10 * time.Millisecond,
		MaxBackoff:   200 * time.Millisecond,
		PingInterval: 100 * time.Millisecond,
		QueryTimeout: testkit.Scale(5 * time.Second),
		DialTimeout:  testkit.Scale(5 * time.Second),
		// Every test relay is on loopback, the followed ones too; the
		// guard itself is tested with this off (guard_test.go).
		AllowPrivate: true,
	}
}

// run starts a client and stops it (waiting for Run to return) at cleanup.
func run(t *testing.T, cfg Config) (*Client, *sink) {
	t.Helper()
	s := newSink()
	if cfg.OnReject == nil {
		cfg.OnReject = s.onReject
	}
	c := New(cfg)
	startClient(t, c, s)
	return c, s
}

// startClient runs c into s until cleanup, waiting for Run to return.
func startClient(t *testing.T, c *Client, s *sink) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	out := make(chan Received)
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx, out) }()
	go func() {
		for {
			select {
			case r := <-out:
				s.add(r)
			case <-ctx.Done():
				return
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(testkit.Scale(10 * time.Second)):
			t.Error("Run did not return after cancel")
		}
	})
}

func strconvI(v int64) string { return fmt.Sprint(v) }

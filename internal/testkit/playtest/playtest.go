// Package playtest is the setup the tests of the runner and its callers
// share (play, play/model, mcpseat, cmd/vesper): a relayd on loopback,
// events published to it and read back folded, and a runner that plays on
// it until the test ends. Every timeout it gives the code is scaled
// (testkit.Scale) and generous: each wait ends on an event, so a long one
// costs nothing when things work and holds on a loaded machine.
package playtest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
	"vesper/nostr/relay"
	"vesper/play"
	"vesper/relayd"
	"vesper/reveal"
	"vesper/seat"
)

// IO is the timeout of one loopback publish or fetch (scaled where used):
// a dial, a frame and its answer, which take seconds only when the machine
// is very busy.
const IO = 30 * time.Second

// Relay starts a relayd on loopback for the test and returns its URL.
func Relay(t testing.TB) string {
	t.Helper()
	r, err := relayd.Start(context.Background(), relayd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r.URL()
}

// Publish posts signed events to url and fails the test when the relay
// refuses one.
func Publish(t testing.TB, url string, evs ...*nostr.Event) {
	t.Helper()
	for _, ev := range evs {
		if len(relay.Accepted(relay.Publish(context.Background(), []string{url}, ev, testkit.Scale(IO)))) == 0 {
			t.Fatalf("relay refused %s", ev.ID)
		}
	}
}

// Fold reads match id's events from url and folds them.
func Fold(t testing.TB, url, id string) *match.State {
	t.Helper()
	st, _ := fetch(t, url, id, relay.MatchFilters(id))
	return st
}

// Reveals reads match id and its reveal events from url, folds the match
// and checks the reveals, as an independent verifier would.
func Reveals(t testing.TB, url, id string) (*match.State, reveal.Report) {
	t.Helper()
	filters := append(relay.MatchFilters(id), gn.Filter{Kinds: []int{nostr.KindReveal}, Tags: gn.TagMap{nostr.MatchTag: {id}}})
	st, evs := fetch(t, url, id, filters)
	return st, reveal.Check(st, evs)
}

func fetch(t testing.TB, url, id string, filters gn.Filters) (*match.State, []*nostr.Event) {
	t.Helper()
	got, err := relay.Fetch(context.Background(), []string{url}, filters, testkit.Scale(IO))
	if err != nil {
		t.Fatal(err)
	}
	evs := make([]*nostr.Event, 0, len(got))
	for _, r := range got {
		evs = append(evs, r.Event)
	}
	st, err := match.Fold(id, evs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return st, evs
}

// Eventually polls cond (which may read the relay) until it holds. The
// deadline is generous, never a budget: a whole game of a runner fits in
// it on a loaded machine.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	testkit.WaitFor(t, what, 2*time.Minute, cond)
}

// Seat is a seat for key on url with the loopback timeout and a reasoning
// journal in the test's temporary directory.
func Seat(t testing.TB, url string, key nostr.SecretKey) *seat.Seat {
	return &seat.Seat{Relays: []string{url}, Key: key, Timeout: testkit.Scale(IO), JournalDir: filepath.Join(t.TempDir(), "journal")}
}

// Start runs a runner on cfg until stop is called; cfg.Seat defaults to
// Seat(t, url, key) and cfg.Dir to a temporary directory. stop cancels the
// runner and waits for it to return.
func Start(t testing.TB, url string, key nostr.SecretKey, cfg play.Config) (s *seat.Seat, dir string, stop func()) {
	t.Helper()
	if cfg.Seat == nil {
		cfg.Seat = Seat(t, url, key)
	}
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	r, err := play.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = r.Run(ctx); close(done) }()
	return cfg.Seat, cfg.Dir, func() { cancel(); <-done }
}

// Run is Start until the test ends; it returns the seat and directory.
func Run(t testing.TB, url string, key nostr.SecretKey, cfg play.Config) (*seat.Seat, string) {
	t.Helper()
	s, dir, stop := Start(t, url, key, cfg)
	t.Cleanup(stop)
	return s, dir
}

package sim

import (
	"context"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
	"vesper/nostr/relay"
)

// Bugs the simulation found in other packages, each reduced to a test.
// Both are fixed now; the tests stay as regression tests.

// TestRelayClientPagesPastForgedEvents is the same with the project's
// relay client, which the daemon backfills with. The pager once counted
// only the events it delivered, so a page holding one event that failed its
// checks looked short, was taken for the last page, and everything older on
// that relay was never fetched (`vesper sim --forged 20` showed it end to
// end).
func TestRelayClientPagesPastForgedEvents(t *testing.T) {
	f, n := forgedRelay(t, 350)
	got, err := relay.Fetch(context.Background(), f.DirectURLs(), GameFilters(), testkit.Scale(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("fetched %d events, want the %d valid ones", len(got), n)
	}
}

// TestStampAfterAcceptReleasingHeldMove: an event stamped by State.Stamp
// must sort after every event the fold used (PROTOCOL.md section 2 orders
// ties by id). A regression test: LastUsed once missed the accept that
// released a held ply-1 move (the fold judged "used" by the ignored list's
// length, which that accept shortens), so the daemon stamped its first move
// in the second of its own accept and the move could sort before it.
func TestStampAfterAcceptReleasingHeldMove(t *testing.T) {
	a, b := testkit.Key("held-a"), testkit.Key("held-b")
	const t0 = 1_790_000_000
	m := testkit.NewMatch(a, b, nostr.GameChess, "", t0)
	m.Move(a, 1, "e2e4", t0+1) // held until the accept
	m.Accept(t0 + 100)
	s, err := match.Fold(m.ID, m.Events, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Plies() != 1 {
		t.Fatalf("the held move was not counted: %d plies", s.Plies())
	}
	if got := s.Stamp(t0 + 100); got <= t0+100 {
		t.Fatalf("Stamp(%d) = %d: not after the accept at %d (LastUsed %d)", t0+100, got, t0+100, s.LastUsed)
	}
}

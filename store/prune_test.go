package store

import (
	"slices"
	"testing"

	"vesper/nostr"
)

// TestPutEventsMatchesOverride: a stub names no match itself and is
// recorded under the matches of the event it stands for, once.
func TestPutEventsMatchesOverride(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	k := nostr.GenerateKey()
	m1 := signed(t, k, nostr.NewChallenge(nostr.GameChess, "", 1000))
	m2 := signed(t, k, nostr.NewChallenge(nostr.GameGomoku, "", 1001))
	stub := signed(t, k, &nostr.Event{Kind: nostr.KindMove, CreatedAt: 1100, Tags: nostr.Tags{{"x", "y"}}})
	if _, err := s.PutEvents(ctx, []Incoming{{Event: m1}, {Event: m2}, {Event: stub, Matches: []string{m1.ID, m2.ID}}}); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{m1.ID, m2.ID} {
		evs, err := s.MatchEvents(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := ids(evs), []string{m, stub.ID}; !slices.Equal(got, want) {
			t.Errorf("match %s: events %q, want %q", m[:8], got, want)
		}
	}
	if n, _, _ := s.Stats(ctx); n != 3 {
		t.Errorf("%d events stored, want 3 (one row for the stub)", n)
	}
	if _, err := s.PutEvents(ctx, []Incoming{{Event: stub, Matches: []string{"not-a-match"}}}); err == nil {
		t.Error("a malformed match id was accepted")
	}
}

func TestQuotaCounts(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	a, b := nostr.GenerateKey(), nostr.GenerateKey()
	var chs []*nostr.Event
	for i := int64(0); i < 4; i++ {
		ch := signed(t, a, nostr.NewChallenge(nostr.GameChess, "", 1000+i*100))
		chs = append(chs, ch)
		if _, err := s.PutEvent(ctx, ch, nil, "r", 1000); err != nil {
			t.Fatal(err)
		}
	}
	// The second challenge is accepted: it no longer counts as open.
	if err := s.PutSummary(ctx, Summary{Match: chs[1].ID, Game: "chess", First: a.PublicKey(), Second: b.PublicKey(), Status: "active", JSON: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		since int64
		want  int
	}{{0, 3}, {1150, 2}, {1301, 0}} {
		if got, err := s.OpenChallenges(ctx, a.PublicKey(), c.since); err != nil || got != c.want {
			t.Errorf("OpenChallenges(since %d) = %d, %v; want %d", c.since, got, err, c.want)
		}
	}
	for i := int64(0); i < 3; i++ {
		ev := signed(t, b, nostr.NewMove(chs[0].ID, int(i)+1, "e2e4", 2000+i))
		if _, err := s.PutEvent(ctx, ev, nil, "r", 2000); err != nil {
			t.Fatal(err)
		}
	}
	// Both ways of counting (by the match's events, by the author's)
	// agree.
	for _, from := range []int{0, 1 << 30} {
		if got, err := s.authorEvents(ctx, chs[0].ID, b.PublicKey(), from); err != nil || got != 3 {
			t.Errorf("authorEvents(b, scan from %d) = %d, %v; want 3", from, got, err)
		}
	}
	if got, _ := s.AuthorEvents(ctx, chs[0].ID, b.PublicKey()); got != 3 {
		t.Errorf("AuthorEvents(b) = %d, want 3", got)
	}
	if got, _ := s.AuthorEvents(ctx, chs[0].ID, a.PublicKey()); got != 0 {
		t.Errorf("AuthorEvents(a) = %d, want 0 (the challenge is not counted)", got)
	}
}

// TestPrune: junk goes (an expired challenge nobody took with its events,
// events of a match never stored, an event of no match), what is live or
// recent stays, and a dry run counts the same and changes nothing.
func TestPrune(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	a, b := nostr.GenerateKey(), nostr.GenerateKey()
	put := func(k nostr.SecretKey, ev *nostr.Event, seen int64) *nostr.Event {
		t.Helper()
		signed(t, k, ev)
		if _, err := s.PutEvent(ctx, ev, nil, "r", seen); err != nil {
			t.Fatal(err)
		}
		return ev
	}
	live := put(a, nostr.NewChallenge(nostr.GameChess, "", 1000), 1000)
	liveAccept := put(b, nostr.NewAccept(live.ID, a.PublicKey(), 1010), 1010)
	dead := put(a, nostr.NewChallenge(nostr.GameGomoku, "", 1001), 1001)
	deadJunk := put(b, nostr.NewRequest(dead.ID, "", 1020), 1020)
	ghost := "ab" + live.ID[2:] // a match whose challenge never came
	orphanOld := put(b, nostr.NewMove(ghost, 1, "e2e4", 1030), 1030)
	orphanNew := put(b, nostr.NewMove(ghost, 2, "e7e5", 5000), 5000)
	noMatch := put(b, &nostr.Event{Kind: nostr.KindMove, CreatedAt: 1040}, 1040)
	shared := put(b, &nostr.Event{Kind: nostr.KindResult, CreatedAt: 1050, Tags: nostr.Tags{{"g", live.ID}, {"g", dead.ID}}}, 1050)
	for _, sum := range []Summary{
		{Match: live.ID, Game: "chess", First: a.PublicKey(), Second: b.PublicKey(), Status: "active", JSON: []byte(`{}`)},
		{Match: dead.ID, Game: "gomoku", First: a.PublicKey(), Status: "expired", JSON: []byte(`{}`)},
	} {
		if err := s.PutSummary(ctx, sum); err != nil {
			t.Fatal(err)
		}
	}
	orphans, err := s.OrphanMatches(ctx)
	if err != nil || !slices.Equal(orphans, []string{ghost}) {
		t.Fatalf("OrphanMatches = %q, %v; want [%s]", orphans, err, ghost)
	}
	unaccepted, err := s.UnacceptedBefore(ctx, 2000)
	if err != nil || !slices.Equal(unaccepted, []string{dead.ID}) {
		t.Fatalf("UnacceptedBefore = %q, %v; want [%s]", unaccepted, err, dead.ID)
	}
	deadIDs := append(orphans, unaccepted...)
	want := PruneStats{Matches: 1, Events: 4, Summaries: 1} // dead, deadJunk, orphanOld, noMatch
	dry, err := s.Prune(ctx, deadIDs, 4000, true)
	if err != nil || dry != want {
		t.Fatalf("dry run: %+v, %v; want %+v", dry, err, want)
	}
	if n, _, _ := s.Stats(ctx); n != 8 {
		t.Fatalf("the dry run deleted: %d events left, want 8", n)
	}
	got, err := s.Prune(ctx, deadIDs, 4000, false)
	if err != nil || got != want {
		t.Fatalf("prune: %+v, %v; want %+v", got, err, want)
	}
	for _, c := range []struct {
		ev   *nostr.Event
		kept bool
	}{{live, true}, {liveAccept, true}, {dead, false}, {deadJunk, false}, {orphanOld, false},
		{orphanNew, true}, {noMatch, false}, {shared, true}} {
		if has, _ := s.HasEvent(ctx, c.ev.ID); has != c.kept {
			t.Errorf("event kind %d at %d: kept = %v, want %v", c.ev.Kind, c.ev.CreatedAt, has, c.kept)
		}
	}
	if _, ok, _ := s.Summary(ctx, dead.ID); ok {
		t.Error("the dead match's summary is still stored")
	}
	if evs, _ := s.MatchEvents(ctx, live.ID); len(evs) != 3 {
		t.Errorf("live match has %d events, want 3", len(evs))
	}
	again, err := s.Prune(ctx, deadIDs, 4000, false)
	if err != nil || again != (PruneStats{}) {
		t.Errorf("second prune: %+v, %v; want nothing", again, err)
	}
}

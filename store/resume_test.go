package store

import (
	"context"
	"slices"
	"testing"

	"vesper/nostr"
)

// The dirty marks are written in the transaction that stores the events
// and taken by the summary's: a crash between the two leaves the mark,
// which is what a daemon's start folds (issue 16).
func TestDirtyMarks(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	k := nostr.GenerateKey()
	ch := signed(t, k, nostr.NewChallenge(nostr.GameChess, "", 1_700_000_000))
	mv := signed(t, k, nostr.NewMove(ch.ID, 1, "e2e4", 1_700_000_001))
	if _, err := s.PutEvents(ctx, []Incoming{{Event: ch, SeenAt: 1}}); err != nil {
		t.Fatal(err)
	}
	r, err := s.ResumeSet(ctx, 1, Dormancy{})
	if err != nil || !slices.Equal(r.Dirty, []string{ch.ID}) {
		t.Fatalf("after the challenge: dirty %v, %v; want the match", r.Dirty, err)
	}
	sum := Summary{Match: ch.ID, Game: "chess", First: k.PublicKey(), Status: "open", JSON: []byte(`{}`), FoldVersion: 1}
	if err := s.PutSummary(ctx, sum); err != nil {
		t.Fatal(err)
	}
	if r, _ = s.ResumeSet(ctx, 1, Dormancy{}); len(r.Dirty) != 0 || !slices.Equal(r.Open, []string{ch.ID}) || r.Stale != 0 {
		t.Fatalf("after its summary: %+v; want it open, nothing dirty or stale", r)
	}
	// A copy is not new: no mark. A new event is.
	if _, err := s.PutEvents(ctx, []Incoming{{Event: ch, SeenAt: 2}}); err != nil {
		t.Fatal(err)
	}
	if r, _ = s.ResumeSet(ctx, 1, Dormancy{}); len(r.Dirty) != 0 {
		t.Fatalf("a copy marked the match: %v", r.Dirty)
	}
	if _, err := s.PutEvents(ctx, []Incoming{{Event: mv, SeenAt: 2}}); err != nil {
		t.Fatal(err)
	}
	if r, _ = s.ResumeSet(ctx, 1, Dormancy{}); !slices.Equal(r.Dirty, []string{ch.ID}) {
		t.Fatalf("a new event did not mark its match: %v", r.Dirty)
	}
	if got, err := s.UnsettledMatches(ctx, 1); err != nil || !slices.Equal(got, []string{ch.ID}) {
		t.Errorf("a dirty match: UnsettledMatches = %v, %v; want it", got, err)
	}
	// Another fold version makes the summary stale; final or expired
	// summaries are not open.
	if r, _ = s.ResumeSet(ctx, 2, Dormancy{}); r.Stale != 1 {
		t.Errorf("stale %d under fold version 2, want 1", r.Stale)
	}
	if got, _ := s.StaleSummaries(ctx, 2, "", 10); !slices.Equal(got, []string{ch.ID}) {
		t.Errorf("StaleSummaries = %v", got)
	}
	sum.Status, sum.Final = "over", true
	if err := s.PutSummary(ctx, sum); err != nil {
		t.Fatal(err)
	}
	if r, _ = s.ResumeSet(ctx, 1, Dormancy{}); len(r.Open) != 0 || len(r.Dirty) != 0 {
		t.Errorf("a final summary: %+v; want nothing to fold", r)
	}
	// Its summary is the fold's: settled, unless another version wrote it.
	if got, err := s.UnsettledMatches(ctx, 1); err != nil || len(got) != 0 {
		t.Errorf("a current summary: UnsettledMatches = %v, %v; want none", got, err)
	}
	if got, err := s.UnsettledMatches(ctx, 2); err != nil || !slices.Equal(got, []string{ch.ID}) {
		t.Errorf("a stale summary: UnsettledMatches = %v, %v; want it", got, err)
	}
	if err := s.ClearDirty(ctx, []string{ch.ID}); err != nil {
		t.Fatal(err)
	}
	have, err := s.HaveSummaries(ctx, []string{ch.ID, mv.ID})
	if err != nil || !have[ch.ID] || have[mv.ID] {
		t.Errorf("HaveSummaries = %v, %v", have, err)
	}
}

func TestChallengeRelaysAndAnalysisStatuses(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	k := nostr.GenerateKey()
	ch := signed(t, k, nostr.NewChallenge(nostr.GameChess, "", 1_700_000_000))
	mv := signed(t, k, nostr.NewMove(ch.ID, 1, "e2e4", 1_700_000_001))
	in := []Incoming{{Event: ch, Relay: "wss://b", SeenAt: 1}, {Event: ch, Relay: "wss://a", SeenAt: 1},
		{Event: ch, Relay: "wss://c", SeenAt: 1}, {Event: mv, Relay: "wss://d", SeenAt: 1}}
	for _, it := range in {
		if _, err := s.PutEvents(ctx, []Incoming{it}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.ChallengeRelays(ctx, 2)
	if err != nil || len(got) != 1 || !slices.Equal(got[ch.ID], []string{"wss://a", "wss://b"}) {
		t.Errorf("ChallengeRelays = %v, %v; want the challenge's first two relays", got, err)
	}
	if err := s.PutAnalysis(ctx, Analysis{Match: ch.ID, Status: "done", Engine: "e", JSON: []byte(`{}`), UpdatedAt: 1}); err != nil {
		t.Fatal(err)
	}
	st, err := s.AnalysisStatuses(ctx)
	if err != nil || len(st) != 1 || st[ch.ID] != "done" {
		t.Errorf("AnalysisStatuses = %v, %v", st, err)
	}
}

// Dormancy (issue 28) leaves out of the resume set the games idle since
// before its Before, but never one its Self plays nor, for an Arbiter, one
// with a request, and counts them apart.
func TestResumeSetLeavesDormantOut(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	put := func(id, first, second string, idle int64, final, requested bool) {
		t.Helper()
		status := "active"
		if final {
			status = "over"
		}
		if err := s.PutSummary(ctx, Summary{Match: id, Game: "chess", First: first, Second: second, Status: status,
			Final: final, JSON: []byte(`{}`), FoldVersion: 1, IdleSince: idle, Requested: requested}); err != nil {
			t.Fatal(err)
		}
	}
	put("a-live", "p1", "p2", 0, false, false)        // never dormant (IdleSince 0)
	put("b-idle", "p1", "p2", 1000, false, false)     // idle since before 2000: dormant
	put("c-recent", "p1", "p2", 2000, false, false)   // idle since 2000: not before it
	put("d-house", "p1", "house", 1000, false, false) // the house's own game
	put("e-final", "p1", "p2", 1000, true, false)     // final: settled, never dormant
	put("f-asked", "p1", "p2", 1000, false, true)     // a request: an arbiter keeps it
	d := Dormancy{Before: 2000, Self: "house", Arbiter: true}
	r, err := s.ResumeSet(ctx, 1, d)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a-live", "c-recent", "d-house", "f-asked"}; !slices.Equal(r.Open, want) || r.Dormant != 1 {
		t.Errorf("resume set %v, %d dormant; want %v, 1", r.Open, r.Dormant, want)
	}
	if r, _ := s.ResumeSet(ctx, 1, Dormancy{Before: 2000, Self: "house"}); r.Dormant != 2 || slices.Contains(r.Open, "f-asked") {
		t.Errorf("no arbiter: %v, %d dormant; want the requested match dormant too", r.Open, r.Dormant)
	}
	if r, _ := s.ResumeSet(ctx, 1, Dormancy{}); len(r.Open) != 5 || r.Dormant != 0 {
		t.Errorf("without dormancy: %v, %d dormant; want every open match", r.Open, r.Dormant)
	}
	counts, err := s.StatusCounts(ctx, true, d)
	if err != nil || counts["dormant"] != 1 || counts["over"] != 1 || counts["active"] != 0 {
		t.Errorf("settled counts %v, %v; want 1 dormant, 1 over", counts, err)
	}
	counts, err = s.StatusCounts(ctx, false, d)
	if err != nil || counts["dormant"] != 1 || counts["active"] != 4 || counts["over"] != 1 {
		t.Errorf("all counts %v, %v; want 1 dormant, 4 active, 1 over", counts, err)
	}
}

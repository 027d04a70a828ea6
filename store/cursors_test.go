package store

import (
	"slices"
	"testing"
)

// TestBackfillProgress: an unfinished backfill's progress round-trips
// through SQLite, survives a reopen, is replaced whole, is cleared by an
// empty until, and never shows up as a relay cursor (issue 13, item 12).
func TestBackfillProgress(t *testing.T) {
	ctx := t.Context()
	s := openTemp(t)
	const a, b = "ws://a.example", "ws://a.example/x"
	if err := s.SetCursor(ctx, a, 100); err != nil {
		t.Fatal(err)
	}
	if err := s.SetBackfill(ctx, a, 10, 90, []int64{50, 9}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetBackfill(ctx, b, 1, 2, []int64{2}); err != nil {
		t.Fatal(err)
	}
	since, top, until, err := s.Backfill(ctx, a)
	if err != nil || since != 10 || top != 90 || !slices.Equal(until, []int64{50, 9}) {
		t.Fatalf("Backfill(a) = %d, %d, %v, %v; want 10, 90, [50 9]", since, top, until, err)
	}
	if err := s.SetBackfill(ctx, a, 10, 95, []int64{40}); err != nil {
		t.Fatal(err)
	}
	if _, top, until, _ := s.Backfill(ctx, a); top != 95 || !slices.Equal(until, []int64{40}) {
		t.Errorf("after replace: top %d until %v, want 95 [40]", top, until)
	}
	cs, err := s.Cursors(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || cs[a] != 100 {
		t.Errorf("Cursors() = %v, want only %s: 100", cs, a)
	}
	if err := s.SetBackfill(ctx, a, 0, 0, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, until, _ := s.Backfill(ctx, a); len(until) != 0 {
		t.Errorf("after clear: until %v, want none", until)
	}
	// b's record, whose key extends a's, was not touched by a's writes.
	if _, _, until, _ := s.Backfill(ctx, b); !slices.Equal(until, []int64{2}) {
		t.Errorf("Backfill(b) until %v, want [2]", until)
	}
	if c, _ := s.Cursor(ctx, a); c != 100 {
		t.Errorf("cursor of a = %d, want 100", c)
	}
}

package store

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"vesper/nostr"
)

func TestAnalysisRoundTrip(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	if _, ok, err := s.Analysis(ctx, "m1"); ok || err != nil {
		t.Fatalf("before any: ok %v, err %v", ok, err)
	}
	a := Analysis{Match: "m1", Status: "done", Engine: "Stockfish 15.1 depth 12", JSON: []byte(`{"format":1}`), UpdatedAt: 100}
	if err := s.PutAnalysis(ctx, a); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.Analysis(ctx, "m1")
	if err != nil || !ok || !reflect.DeepEqual(got, a) {
		t.Fatalf("got %+v %v %v, want %+v", got, ok, err, a)
	}
	// A redo replaces the row.
	b := Analysis{Match: "m1", Status: "failed", Engine: "vesper nodes 200000", JSON: []byte(`{"format":1,"status":"failed"}`), UpdatedAt: 200}
	if err := s.PutAnalysis(ctx, b); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := s.Analysis(ctx, "m1"); !reflect.DeepEqual(got, b) {
		t.Errorf("after the redo: %+v, want %+v", got, b)
	}
	for name, bad := range map[string]Analysis{
		"no match":     {Status: "done", JSON: []byte(`{}`)},
		"no status":    {Match: "m2", JSON: []byte(`{}`)},
		"invalid JSON": {Match: "m2", Status: "done", JSON: []byte(`{`)},
	} {
		if err := s.PutAnalysis(ctx, bad); err == nil {
			t.Errorf("%s: stored", name)
		}
	}
}

// TestAnalysesChunked asks for more ids than one statement may bind.
func TestAnalysesChunked(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	var ids []string
	for i := range 2*knownChunk + 100 {
		id := fmt.Sprintf("m%04d", i)
		ids = append(ids, id)
		if i%3 == 0 {
			continue // not analysed
		}
		if err := s.PutAnalysis(ctx, Analysis{Match: id, Status: "done", Engine: "e", JSON: []byte(`{}`), UpdatedAt: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Analyses(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for i, id := range ids {
		a, ok := got[id]
		if ok != (i%3 != 0) || (ok && a.UpdatedAt != int64(i)) {
			t.Errorf("%s: %+v %v", id, a, ok)
		}
		if i%3 != 0 {
			want++
		}
	}
	if len(got) != want {
		t.Errorf("%d analyses, want %d", len(got), want)
	}
	if got, err := s.Analyses(ctx, nil); err != nil || len(got) != 0 {
		t.Errorf("no ids: %v %v", got, err)
	}
}

// TestUnanalysed: the final chess and gomoku matches without an analysis
// row, oldest challenge first.
func TestUnanalysed(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	k := nostr.GenerateKey()
	type m struct {
		game  string
		at    int64
		final bool
		row   string // an analyses row's status, "" for none
	}
	matches := map[string]m{
		"chess-late":   {nostr.GameChess, 300, true, ""},
		"gomoku-early": {nostr.GameGomoku, 100, true, ""},
		"chess-mid":    {nostr.GameChess, 200, true, ""},
		"chess-open":   {nostr.GameChess, 50, false, ""},
		"chess-done":   {nostr.GameChess, 60, true, "done"},
		"chess-failed": {nostr.GameChess, 70, true, "failed"},
		"unknown-game": {"checkers", 80, true, ""},
	}
	ids := map[string]string{}
	for name, mm := range matches {
		ch := signed(t, k, nostr.NewChallenge(nostr.GameChess, "", mm.at))
		if _, err := s.PutEvents(ctx, []Incoming{{Event: ch, SeenAt: mm.at}}); err != nil {
			t.Fatal(err)
		}
		ids[name] = ch.ID
		if err := s.PutSummary(ctx, Summary{Match: ch.ID, Game: mm.game, First: k.PublicKey(), Status: "over",
			Final: mm.final, UpdatedAt: 1000, JSON: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
		if mm.row != "" {
			if err := s.PutAnalysis(ctx, Analysis{Match: ch.ID, Status: mm.row, JSON: []byte(`{}`)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := []string{ids["gomoku-early"], ids["chess-mid"], ids["chess-late"]}
	for _, tt := range []struct {
		limit int
		want  []string
	}{{0, want}, {-1, want}, {2, want[:2]}, {10, want}} {
		got, err := s.Unanalysed(ctx, tt.limit)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("limit %d: %v %v, want %v", tt.limit, got, err, tt.want)
		}
	}
	if err := s.PutAnalysis(ctx, Analysis{Match: ids["gomoku-early"], Status: "done", JSON: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Unanalysed(ctx, 0); !slices.Equal(got, want[1:]) {
		t.Errorf("after analysing the oldest: %v, want %v", got, want[1:])
	}
}

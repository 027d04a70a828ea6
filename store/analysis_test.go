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
// row, of different players: the newest summary first.
func TestUnanalysed(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
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
		k := nostr.GenerateKey()
		ch := signed(t, k, nostr.NewChallenge(nostr.GameChess, "", mm.at))
		if _, err := s.PutEvents(ctx, []Incoming{{Event: ch, SeenAt: mm.at}}); err != nil {
			t.Fatal(err)
		}
		ids[name] = ch.ID
		if err := s.PutSummary(ctx, Summary{Match: ch.ID, Game: mm.game, First: k.PublicKey(), Status: "over",
			Second: nostr.GenerateKey().PublicKey(), Final: mm.final, UpdatedAt: 1000 + mm.at, JSON: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
		if mm.row != "" {
			if err := s.PutAnalysis(ctx, Analysis{Match: ch.ID, Status: mm.row, JSON: []byte(`{}`)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := []string{ids["chess-late"], ids["chess-mid"], ids["gomoku-early"]}
	for _, tt := range []struct {
		limit int
		want  []string
	}{{0, want}, {-1, want}, {2, want[:2]}, {10, want}} {
		got, err := s.Unanalysed(ctx, bothGames, tt.limit)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("limit %d: %v %v, want %v", tt.limit, got, err, tt.want)
		}
	}
	// Only the games asked for (those the caller grades) are queued.
	if got, err := s.Unanalysed(ctx, []string{nostr.GameGomoku}, 0); err != nil || !slices.Equal(got, []string{ids["gomoku-early"]}) {
		t.Errorf("gomoku only: %v %v", got, err)
	}
	if got, err := s.Unanalysed(ctx, nil, 0); err != nil || len(got) != 0 {
		t.Errorf("no games: %v %v", got, err)
	}
	if err := s.PutAnalysis(ctx, Analysis{Match: ids["chess-late"], Status: "done", JSON: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Unanalysed(ctx, bothGames, 0); !slices.Equal(got, want[1:]) {
		t.Errorf("after analysing the newest: %v, want %v", got, want[1:])
	}
}

// Issue 30 item 10: junk games backdated to the epoch, final before and
// after a real game, by one key against fresh keys and by fresh keys
// against one, do not hold the real game back: it is in the first round.
func TestUnanalysedRealGameNotBehindBackdatedJunk(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	alice, bob, mallory, victim := nostr.GenerateKey(), nostr.GenerateKey(), nostr.GenerateKey(), nostr.GenerateKey()
	put := func(first, second nostr.SecretKey, createdAt, updatedAt int64) string {
		ch := signed(t, first, nostr.NewChallenge(nostr.GameChess, "", createdAt))
		if _, err := s.PutEvents(ctx, []Incoming{{Event: ch, SeenAt: updatedAt}}); err != nil {
			t.Fatal(err)
		}
		if err := s.PutSummary(ctx, Summary{Match: ch.ID, Game: nostr.GameChess, First: first.PublicKey(),
			Second: second.PublicKey(), Status: "over", Final: true, UpdatedAt: updatedAt, JSON: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
		return ch.ID
	}
	for i := int64(0); i < 40; i++ {
		put(mallory, nostr.GenerateKey(), 1+i, 900+i*10) // one key against fresh ones
		put(nostr.GenerateKey(), victim, 1+i, 901+i*10)  // fresh keys against one
	}
	real := put(alice, bob, 1_790_000_000, 1000)
	got, err := s.Unanalysed(ctx, bothGames, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(got, real) {
		t.Fatalf("the real game is not among the first 3 of the queue (%d junk games queued with it)", 80)
	}
	all, _ := s.Unanalysed(ctx, bothGames, 0)
	if len(all) != 81 {
		t.Errorf("queue of %d, want 81", len(all))
	}
}

var bothGames = []string{nostr.GameChess, nostr.GameGomoku}

// UnanalysedOf keeps the games one of the players played, either side,
// in the queue's order (issue 38 item 3); no players, no games.
func TestUnanalysedOf(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	alice, bob, carol := nostr.GenerateKey(), nostr.GenerateKey(), nostr.GenerateKey()
	put := func(first, second nostr.SecretKey, at int64) string {
		ch := signed(t, first, nostr.NewChallenge(nostr.GameChess, "", at))
		if err := s.PutSummary(ctx, Summary{Match: ch.ID, Game: nostr.GameChess, First: first.PublicKey(),
			Second: second.PublicKey(), Status: "over", Final: true, UpdatedAt: at, JSON: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
		return ch.ID
	}
	ab, cb, bc := put(alice, bob, 10), put(carol, bob, 20), put(bob, carol, 30)
	if got, err := s.UnanalysedOf(ctx, bothGames, []string{alice.PublicKey()}, 0); err != nil || !slices.Equal(got, []string{ab}) {
		t.Errorf("alice's: %v %v", got, err)
	}
	if got, _ := s.UnanalysedOf(ctx, bothGames, []string{carol.PublicKey()}, 0); !slices.Equal(got, []string{bc, cb}) {
		t.Errorf("carol's: %v, want %v", got, []string{bc, cb})
	}
	if got, _ := s.UnanalysedOf(ctx, bothGames, nil, 0); len(got) != 0 {
		t.Errorf("nobody's: %v", got)
	}
}

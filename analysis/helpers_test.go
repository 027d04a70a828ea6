package analysis

import (
	"testing"

	"vesper/internal/testkit"
	"vesper/match"
)

// finished folds a real signed match of game with moves (canonical, as
// the fold counts them) between two test keys. A game that the moves do
// not end by rule ends by the resignation of the side to move.
func finished(t testing.TB, game string, moves []string) *match.State {
	t.Helper()
	a, b := testkit.Key("first"), testkit.Key("second")
	t0 := int64(1_750_000_000)
	m := testkit.NewMatch(a, b, game, "", t0)
	m.Accept(t0 + 1)
	last := m.Play(moves, t0+2, 1)
	st, err := match.Fold(m.ID, m.Events, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Over {
		k := a
		if len(moves)%2 == 1 {
			k = b
		}
		m.Move(k, len(moves)+1, "resign", last+1)
		if st, err = match.Fold(m.ID, m.Events, nil); err != nil {
			t.Fatal(err)
		}
	}
	if !st.Over || len(st.Moves) != len(moves) {
		t.Fatalf("fold: over %v with %d of %d moves counted: %v", st.Over, len(st.Moves), len(moves), st.Ignored)
	}
	return st
}

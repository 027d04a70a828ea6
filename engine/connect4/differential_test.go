package connect4

import (
	"math/rand/v2"
	"testing"

	"vesper/match/connect4"
)

// The engine's bitboards agree with the rules (vesper/match/connect4, the
// fold's) on random games: which strings are moves, which columns are
// full, every cell, when and why the game ends, and which columns win at
// once, so that the engine never searches a game the fold would not play.
func TestDifferentialWithRules(t *testing.T) {
	if connect4.Cols != Width || connect4.Rows != Height || connect4.Cells != Cells {
		t.Fatalf("sizes: rules %dx%d, engine %dx%d", connect4.Cols, connect4.Rows, Width, Height)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	strs := []string{"a", "b", "c", "d", "e", "f", "g", "A", "D", "G", "h", "H", "", "dd", "1", " d", "ä"}
	reasons := map[string]int{}
	for range 2000 {
		g := connect4.NewGame()
		var p Position
		var moves []string
		for step := 0; step < 80; step++ {
			s := strs[rng.IntN(len(strs))]
			if rng.IntN(3) > 0 {
				s = strs[rng.IntN(Width)] // mostly real columns, so games end
			}
			col, perr := ParseColumn(s)
			engineOK := perr == nil && p.Over() == "" && p.CanPlay(col)
			wins := engineOK && p.Wins(col)
			_, err := g.Move(s)
			if (err == nil) != engineOK {
				t.Fatalf("after %v, %q: rules say %v, engine legal %v", moves, s, err, engineOK)
			}
			if err != nil {
				continue
			}
			p.Play(col)
			moves = append(moves, ColumnName(col))
			if q, err := FromMoves(moves); err != nil || q != p {
				t.Fatalf("FromMoves(%v) = %v, %v; played %v", moves, q, err, p)
			}
			over, winner, reason := g.Outcome()
			if !over {
				reason = ""
			}
			if p.Over() != reason || wins != (reason == connect4.ReasonFour) {
				t.Fatalf("after %v: rules %q (winner %d), engine %q, Wins %v", moves, reason, winner, p.Over(), wins)
			}
			if over && reason == connect4.ReasonFour && int(winner) != 2-len(moves)%2 {
				t.Fatalf("after %v: rules name winner %d", moves, winner)
			}
			for c := range Width {
				for r := range Height {
					if int(g.At(c, r)) != p.Cell(c, r) {
						t.Fatalf("after %v: cell %d,%d rules %d engine %d", moves, c, r, g.At(c, r), p.Cell(c, r))
					}
				}
			}
			if over {
				reasons[reason]++
				break
			}
		}
	}
	if reasons[connect4.ReasonFour] == 0 || reasons[connect4.ReasonBoardFull] == 0 {
		t.Errorf("endings seen %v: want both reasons", reasons)
	}
}

package analysis

import (
	"math/rand/v2"
	"testing"

	"vesper/engine/connect4"
)

var c4Sides = [2]string{"red", "yellow"}

// Yellow's c at ply 6 ignores Red's three on a: Red makes four there. That
// is a blunder (a was the answer) at any budget, even the smallest; Red's
// a is best (a win kept).
func TestConnect4AllowedFour(t *testing.T) {
	moves := []string{"a", "b", "a", "b", "a", "c", "a"}
	for _, budget := range []int64{1, 50_000} {
		got, err := gradeConnect4Moves(t.Context(), moves, budget, c4Sides)
		if err != nil {
			t.Fatal(err)
		}
		if m := got[5]; m.Tag != TagBlunder || m.Best != "a" || m.Side != "yellow" || m.Move != "c" {
			t.Errorf("budget %d: ply 6 %+v, want a blunder, best a", budget, m)
		}
		if m := got[6]; m.Tag != TagBest || m.Side != "red" {
			t.Errorf("budget %d: ply 7 %+v, want best", budget, m)
		}
		if budget == 1 {
			// Nothing else is proven in one node: unknown, not a guess.
			for _, m := range got[:5] {
				if m.Tag != TagUnknown || m.Best != "" {
					t.Errorf("budget 1: ply %d %+v, want unknown", m.Ply, m)
				}
			}
		}
	}
}

// bruteC4 is plain minimax, no pruning and no table: the value for the
// side to move.
func bruteC4(p connect4.Position) connect4.Value {
	best := connect4.Loss
	for c := range connect4.Width {
		if !p.CanPlay(c) {
			continue
		}
		if p.Wins(c) {
			return connect4.Win
		}
		q := p
		q.Play(c)
		if q.Full() {
			best = max(best, connect4.Draw)
			continue
		}
		best = max(best, bruteC4(q).Neg())
	}
	return best
}

// Near the end of random games, where brute force is cheap, every grade
// is exact and agrees with brute force: best when the move keeps the
// value, blunder when it turns a win or a draw into a loss (or allows
// four), mistake when it turns a win into a draw.
func TestConnect4GradesAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	seen := map[Tag]int{}
	for range 40 {
		// Random games that reach 31 discs without a four (redrawn until
		// one does), played on at random to the end.
		var p connect4.Position
		var moves []string
		var pos []connect4.Position
		for p.Over() == "" {
			if p.Over() == "" && p.Moves() == 0 {
				moves, pos = nil, nil
			}
			c := rng.IntN(connect4.Width)
			if !p.CanPlay(c) {
				continue
			}
			pos = append(pos, p)
			p.Play(c)
			moves = append(moves, connect4.ColumnName(c))
			if p.Over() != "" && p.Moves() <= connect4.Cells-11 {
				p = connect4.Position{}
			}
		}
		got, err := gradeConnect4Moves(t.Context(), moves, 5000, c4Sides)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range got {
			if connect4.Cells-pos[i].Moves() > 11 {
				continue
			}
			before := bruteC4(pos[i])
			q := pos[i]
			c, _ := connect4.ParseColumn(moves[i])
			var after connect4.Value
			switch {
			case q.Wins(c):
				after = connect4.Win
			case q.Moves() == connect4.Cells-1:
				after = connect4.Draw
			default:
				q.Play(c)
				after = bruteC4(q).Neg()
			}
			want := TagBest
			switch {
			case i+1 < len(moves) && func() bool { q := pos[i]; q.Play(c); return q.CanWinNext() }() && i+2 == len(moves) && hasSafe(pos[i], c):
				want = TagBlunder
			case after < before && after == connect4.Loss:
				want = TagBlunder
			case after < before:
				want = TagMistake
			}
			if m.Value != before.String() {
				t.Fatalf("%v ply %d: value %q, want %v", moves, i+1, m.Value, before)
			}
			if m.Tag != want {
				t.Fatalf("%v ply %d: %s, want %s (before %v, after %v)", moves, i+1, m.Tag, want, before, after)
			}
			seen[m.Tag]++
		}
	}
	t.Logf("grades checked: %v", seen)
	for _, tag := range []Tag{TagBest, TagBlunder, TagMistake} {
		if seen[tag] == 0 {
			t.Errorf("no %s among %v", tag, seen)
		}
	}
}

// hasSafe: some other column in p does not let the opponent make four.
func hasSafe(p connect4.Position, played int) bool {
	for c := range connect4.Width {
		if c == played || !p.CanPlay(c) {
			continue
		}
		if p.Wins(c) {
			return true
		}
		q := p
		q.Play(c)
		if q.Full() || !q.CanWinNext() {
			return true
		}
	}
	return false
}

func TestConnect4BadMoves(t *testing.T) {
	for _, moves := range [][]string{{"h"}, {"a", "a", "a", "a", "a", "a", "a"}, {"a", "b", "a", "b", "a", "b", "a", "b"}} {
		if _, err := gradeConnect4Moves(t.Context(), moves, 100, c4Sides); err == nil {
			t.Errorf("%v graded", moves)
		}
	}
}

// Through the fold and the Analyser: a signed Connect Four match is graded
// by the solver with the budget of Options, named in the record, with the
// sides the registry gives and counts that add up.
func TestConnect4Analyse(t *testing.T) {
	// Red's open three d-e-f threatens c and g: Yellow is lost whatever
	// it plays, so its a is no blunder (both answers lose).
	moves := []string{"d", "d", "e", "e", "f", "a", "c"}
	st := finished(t, "connect4", moves)
	g, err := Analyse(t.Context(), st, Options{SolverNodes: 3000})
	if err != nil {
		t.Fatal(err)
	}
	if g.Engine != connect4Engine(3000) || g.Game != "connect4" || g.Status != StatusDone || len(g.Moves) != len(moves) {
		t.Fatalf("record %+v", g)
	}
	if m := g.Moves[5]; m.Tag != TagBest || m.Value != "loss" || m.Side != "yellow" {
		t.Errorf("ply 6 %+v, want best in a lost position", m)
	}
	if m := g.Moves[6]; m.Tag != TagBest || m.Value != "win" || m.Side != "red" {
		t.Errorf("ply 7 %+v, want best in a won position", m)
	}
	for k, p := range g.Players {
		n := 0
		for _, c := range p.Counts {
			n += c
		}
		if n != p.Moves || p.Side != [2]string{"red", "yellow"}[k] {
			t.Errorf("player %d: %+v", k, p)
		}
	}
	if a, _ := New(Options{}); a.Engine().Nodes == 0 || graders["connect4"].engine(a).Nodes != connect4.DefaultBudget {
		t.Errorf("default budget not named: %+v", graders["connect4"].engine(a))
	}
}

package connect4

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestFromMoves(t *testing.T) {
	p, err := FromMoves([]string{"d", "D", "c"})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Repeat(".......\n", 4) + "...o...\n..xx...\n"
	if p.String() != want {
		t.Errorf("board\n%s\nwant\n%s", p, want)
	}
	if p.Moves() != 3 || p.Cell(3, 0) != 1 || p.Cell(3, 1) != 2 || p.Cell(2, 0) != 1 || p.Cell(0, 0) != 0 {
		t.Errorf("cells wrong:\n%s", p)
	}
	for _, tt := range []struct {
		moves []string
		want  string
	}{
		{[]string{"h"}, `bad column "h"`},
		{[]string{"dd"}, `bad column "dd"`},
		{[]string{""}, `bad column ""`},
		{[]string{"1"}, `bad column "1"`},
		{[]string{"a", "a", "a", "a", "a", "a", "a"}, "move 7: column a is full"},
	} {
		if _, err := FromMoves(tt.moves); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("FromMoves(%v) = %v, want %q", tt.moves, err, tt.want)
		}
	}
	// Red's vertical four on a ends the game; a move after it is refused.
	won := []string{"a", "b", "a", "b", "a", "b", "a"}
	p, err = FromMoves(won)
	if err != nil || p.Over() != "four_in_a_row" {
		t.Fatalf("four: %v %q", err, p.Over())
	}
	var over *OverError
	if _, err := FromMoves(append(won, "c")); !errors.As(err, &over) || over.Reason != "four_in_a_row" || over.Ply != 7 {
		t.Errorf("move after the win: %v", err)
	}
	if _, err := Best(won, Limits{Nodes: 100}); !errors.As(err, &over) {
		t.Errorf("Best after the win: %v", err)
	}
}

// fourOf is the brute-force check: some line of four cells holds discs of
// one side (1 or 2) only.
func fourOf(p Position, side int) bool {
	for _, w := range windows {
		n := 0
		for col := range Width {
			for row := range Height {
				if w&(1<<(col*stride+row)) != 0 && p.Cell(col, row) == side {
					n++
				}
			}
		}
		if n == 4 {
			return true
		}
	}
	return false
}

// The shift tests agree with the window count on random games, in all four
// directions, and Wins predicts LastWon.
func TestFourAgainstWindows(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	dirs := map[string]bool{}
	for range 3000 {
		var p Position
		for p.Over() == "" {
			var cols []int
			for c := range Width {
				if p.CanPlay(c) {
					cols = append(cols, c)
				}
			}
			c := cols[rng.IntN(len(cols))]
			wins := p.Wins(c)
			mover := 1 + p.moves%2
			p.Play(c)
			if wins != p.LastWon() {
				t.Fatalf("Wins(%d) = %v, LastWon %v:\n%s", c, wins, p.LastWon(), p)
			}
			if got := fourOf(p, mover); got != p.LastWon() {
				t.Fatalf("LastWon %v, windows %v:\n%s", p.LastWon(), got, p)
			}
			if fourOf(p, 3-mover) {
				t.Fatalf("the other side has four:\n%s", p)
			}
			if p.LastWon() {
				dirs[direction(p, mover)] = true
			}
		}
	}
	if len(dirs) != 4 {
		t.Errorf("random games won in directions %v, want all four", dirs)
	}
}

func direction(p Position, side int) string {
	for _, w := range windows {
		ok := true
		var cols, rows []int
		for col := range Width {
			for row := range Height {
				if w&(1<<(col*stride+row)) != 0 {
					ok = ok && p.Cell(col, row) == side
					cols, rows = append(cols, col), append(rows, row)
				}
			}
		}
		if ok {
			switch {
			case cols[0] == cols[3]:
				return "vertical"
			case rows[0] == rows[3]:
				return "horizontal"
			case rows[0] < rows[3]:
				return "rising"
			}
			return "falling"
		}
	}
	return ""
}

// bruteValue is plain minimax over every legal move, no pruning, no table.
func bruteValue(p Position) Value {
	best := Loss
	for c := range Width {
		if !p.CanPlay(c) {
			continue
		}
		if p.Wins(c) {
			return Win
		}
		q := p
		q.Play(c)
		if q.Full() {
			best = max(best, Draw)
			continue
		}
		best = max(best, -bruteValue(q))
	}
	return best
}

// randomPosition plays random moves until empty cells are left, redrawing
// games that end first.
func randomPosition(rng *rand.Rand, empty int) Position {
	for {
		var p Position
		for p.moves < Cells-empty && p.Over() == "" {
			c := rng.IntN(Width)
			if p.CanPlay(c) {
				p.Play(c)
			}
		}
		if p.Over() == "" {
			return p
		}
	}
}

// The solver agrees with brute force on positions near the end, with its
// table shared across them, as grading shares it.
func TestSolverAgreesWithBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	s := NewSolver()
	seen := map[Value]int{}
	for i := range 300 {
		p := randomPosition(rng, 4+i%9)
		want := bruteValue(p)
		got, _ := s.Solve(p, 0)
		if got != want {
			t.Fatalf("Solve = %v, brute force %v:\n%s", got, want, p)
		}
		seen[want]++
	}
	if len(seen) != 3 {
		t.Errorf("values seen %v: want wins, draws and losses", seen)
	}
}

// A budget too small is Unknown, never a guess; the same position with
// room is solved. The position after d, c, d, c (Red to move) is a win.
func TestSolverBudget(t *testing.T) {
	p, _ := FromMoves([]string{"d", "c"})
	if v, n := NewSolver().Solve(p, 50); v != Unknown || n <= 50 {
		t.Errorf("tiny budget: %v after %d nodes", v, n)
	}
	if v, _ := NewSolver().Solve(Position{}, 1000); v != Unknown {
		t.Errorf("the empty board in 1000 nodes: %v", v)
	}
	// Red's d, d, d over Yellow's c, c, e: d wins at once, whatever the
	// budget.
	p, _ = FromMoves([]string{"d", "c", "d", "c", "d", "e"})
	if v, n := NewSolver().Solve(p, 1); v != Win || n != 1 {
		t.Errorf("win in one: %v after %d nodes", v, n)
	}
}

// opponents of the engine in the tests: a random player, and a one-ply
// player that wins at once when it can, blocks the engine's immediate
// win when it must, and otherwise plays at random.
type opponent func(rng *rand.Rand, p Position) int

func randomPlayer(rng *rand.Rand, p Position) int {
	for {
		if c := rng.IntN(Width); p.CanPlay(c) {
			return c
		}
	}
}

func onePly(rng *rand.Rand, p Position) int {
	for c := range Width {
		if p.CanPlay(c) && p.Wins(c) {
			return c
		}
	}
	for c := range Width {
		if p.CanPlay(c) && p.opponentWinning()&p.cell(c) != 0 {
			return c
		}
	}
	return randomPlayer(rng, p)
}

// play returns 1 if the engine wins, 0 for a draw, -1 if it loses.
func play(t *testing.T, opp opponent, seed uint64, engineFirst bool, lim Limits) int {
	rng := rand.New(rand.NewPCG(seed, 99))
	var p Position
	var moves []string
	for {
		engineMoves := (p.moves%2 == 0) == engineFirst
		var c int
		if engineMoves {
			mv, err := Best(moves, lim)
			if err != nil {
				t.Fatal(err)
			}
			c, _ = ParseColumn(mv)
		} else {
			c = opp(rng, p)
		}
		if !p.CanPlay(c) {
			t.Fatalf("column %d full after %v", c, moves)
		}
		p.Play(c)
		moves = append(moves, ColumnName(c))
		switch p.Over() {
		case "four_in_a_row":
			if engineMoves {
				return 1
			}
			return -1
		case "board_full":
			return 0
		}
	}
}

// shallow is the engine's own search two plies deep, after a random
// first move for variety: it sees every four in one and every immediate
// threat, so only a search that looks further beats it.
func shallow(rng *rand.Rand, p Position) int {
	if p.moves < 2 {
		return randomPlayer(rng, p)
	}
	return choose(p, Limits{Depth: 2})
}

// The house plays well: against a random, a one-ply and a two-ply player,
// seeded games each way, it never loses and it wins every game as first
// player.
func TestEngineBeatsWeakPlayers(t *testing.T) {
	lim := Limits{Nodes: 20_000}
	for name, opp := range map[string]opponent{"random": randomPlayer, "one-ply": onePly, "two-ply": shallow} {
		for seed := range uint64(4) {
			for _, first := range []bool{true, false} {
				r := play(t, opp, seed, first, lim)
				if r < 0 || (first && r != 1) {
					t.Errorf("against %s, seed %d, engine first %v: result %d", name, seed, first, r)
				}
			}
		}
	}
}

// A win in one is taken; a threat is blocked; the same input gives the
// same move.
func TestTactics(t *testing.T) {
	for _, tt := range []struct {
		moves []string
		want  string // the column, or either of two
	}{
		{[]string{"a", "b", "a", "b", "a", "b"}, "a"}, // Red completes a
		{[]string{"a", "b", "a", "b", "a", "c"}, "a"}, // Red wins before blocking
		{[]string{"a", "b", "a", "b", "a"}, "a"},      // Yellow blocks a
		{[]string{"d", "d", "e", "e", "f", "g"}, "c"}, // Red's open three: c wins
		{[]string{"d", "a", "e", "a", "f"}, "cg"},     // Yellow is lost: it blocks one end
	} {
		got, err := Best(tt.moves, Limits{Nodes: 5000})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(tt.want, got) {
			t.Errorf("Best(%v) = %s, want %s", tt.moves, got, tt.want)
		}
		if again, _ := Best(tt.moves, Limits{Nodes: 5000}); again != got {
			t.Errorf("Best(%v) = %s then %s", tt.moves, got, again)
		}
	}
	// Negative limits are none: the default budget, a prompt answer.
	if got, err := Best([]string{"d", "c"}, Limits{Nodes: -1, Depth: -1}); err != nil || got == "" {
		t.Errorf("negative limits: %q, %v", got, err)
	}
	if got, _ := Best(nil, Limits{}); got != "d" {
		t.Errorf("opening %s, want the centre d", got)
	}
}

// Any list of strings: Best answers a legal column or an error, never a
// panic, and the solver's value of a legal position is one of the four.
func FuzzBest(f *testing.F) {
	f.Add("d d e e f")
	f.Add("a a a a a a a")
	f.Add("A b C h")
	f.Fuzz(func(t *testing.T, s string) {
		moves := strings.Fields(s)
		mv, err := Best(moves, Limits{Nodes: 500})
		if err != nil {
			return
		}
		p, _ := FromMoves(moves)
		c, perr := ParseColumn(mv)
		if perr != nil || !p.CanPlay(c) {
			t.Fatalf("Best(%q) = %q, not playable", moves, mv)
		}
		if v, _ := NewSolver().Solve(p, 200); v < Loss || v > Unknown {
			t.Fatalf("value %d", v)
		}
	})
}

package search

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"

	"vesper/engine/board"
)

func mustGame(t testing.TB, fen string, moves ...string) *Game {
	t.Helper()
	g, err := NewGame(fen, moves)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func best(t testing.TB, g *Game, lim Limits) Result {
	t.Helper()
	res, err := NewSearcher(4).Search(g, lim, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// matesIn reports whether the side to move mates by force in at most n
// moves after playing m, by brute force over the move tree.
func matesIn(p *board.Position, m board.Move, n int) bool {
	q := p.Play(m)
	replies := q.LegalMoves()
	if len(replies) == 0 {
		return q.InCheck()
	}
	if n == 1 {
		return false
	}
	for _, r := range replies {
		after := q.Play(r)
		found := false
		for _, m2 := range after.LegalMoves() {
			if matesIn(&after, m2, n-1) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// mirrorFEN swaps the colours and flips the board, so every puzzle is also
// tried with the other side to move.
func mirrorFEN(fen string) string {
	f := strings.Fields(fen)
	swapCase := func(s string) string {
		return strings.Map(func(r rune) rune {
			switch {
			case unicode.IsUpper(r):
				return unicode.ToLower(r)
			case unicode.IsLower(r):
				return unicode.ToUpper(r)
			}
			return r
		}, s)
	}
	ranks := strings.Split(f[0], "/")
	slices.Reverse(ranks)
	f[0] = swapCase(strings.Join(ranks, "/"))
	f[1] = map[string]string{"w": "b", "b": "w"}[f[1]]
	if f[2] != "-" {
		c := swapCase(f[2]) // "KQkq" becomes "kqKQ"; FEN wants White first
		f[2] = strings.Map(func(r rune) rune {
			if unicode.IsUpper(r) {
				return r
			}
			return -1
		}, c) + strings.Map(func(r rune) rune {
			if unicode.IsLower(r) {
				return r
			}
			return -1
		}, c)
	}
	if f[3] != "-" {
		f[3] = string([]byte{f[3][0], '1' + '8' - f[3][1]})
	}
	return strings.Join(f, " ")
}

func TestMates(t *testing.T) {
	tests := []struct {
		name string
		fen  string
		n    int // mate in n moves
	}{
		{"back rank", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", 1},
		{"scholar", "r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", 1},
		{"fool", "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2", 1},
		{"ladder", "7k/8/8/8/8/8/R7/1R4K1 w - - 0 1", 2},
		// Zugzwang: after Ra6 every black move allows mate, which a null
		// move would hide.
		{"rook sacrifice", "kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1", 2},
		{"knight and bishop", "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1", 2},
		{"smothered", "r6k/6pp/7N/8/8/1Q6/8/6K1 w - - 0 1", 2},
	}
	for _, tc := range tests {
		for _, fen := range []string{tc.fen, mirrorFEN(tc.fen)} {
			t.Run(tc.name+"/"+fen, func(t *testing.T) {
				g := mustGame(t, fen)
				res := best(t, g, Limits{Nodes: 200_000})
				if !matesIn(&g.Pos, res.Move, tc.n) {
					t.Fatalf("%s does not mate in %d", res.Move, tc.n)
				}
				if res.Mate != tc.n {
					t.Errorf("reported mate in %d, want %d", res.Mate, tc.n)
				}
			})
		}
	}
}

func TestMatedSideReportsNegativeMate(t *testing.T) {
	// Kb8 or e5, and Rh8 mates.
	g := mustGame(t, "k7/8/1K2p3/8/8/8/8/7R b - - 0 1")
	res := best(t, g, Limits{Depth: 4})
	if res.Mate != -1 {
		t.Errorf("move %s score %d mate %d, want mated in 1", res.Move, res.Score, res.Mate)
	}
}

func TestDeterministicUnderNodeLimit(t *testing.T) {
	for _, fen := range []string{
		board.StartFEN,
		"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
		"r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
	} {
		t.Run(fen, func(t *testing.T) {
			g := mustGame(t, fen)
			lim := Limits{Nodes: 30_000}
			a, b := best(t, g, lim), best(t, g, lim)
			if a.Move != b.Move || a.Nodes != b.Nodes || a.Score != b.Score {
				t.Errorf("first %s (%d nodes, %d cp), second %s (%d nodes, %d cp)",
					a.Move, a.Nodes, a.Score, b.Move, b.Nodes, b.Score)
			}
			if a.Nodes > lim.Nodes+1 {
				t.Errorf("searched %d nodes, limit %d", a.Nodes, lim.Nodes)
			}
		})
	}
}

// TestAlwaysLegal plays random games and, every few plies, asks the search
// for a move with a small budget; the move must be one the generator calls
// legal, and the search must fail only when there is none.
func TestAlwaysLegal(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	s := NewSearcher(4)
	games := 12
	if testing.Short() {
		games = 5
	}
	searched := 0
	for i := 0; i < games; i++ {
		g := mustGame(t, "")
		for ply := 0; ply < 300 && g.Over() == ""; ply++ {
			legal := g.Pos.LegalMoves()
			if ply%7 == 3 {
				res, err := s.Search(g, Limits{Nodes: 1500}, nil)
				if err != nil {
					t.Fatalf("%s: %v", g.Pos.FEN(), err)
				}
				if !slices.Contains(legal, res.Move) {
					t.Fatalf("%s: %s is not legal", g.Pos.FEN(), res.Move)
				}
				searched++
			}
			g.Play(legal[rng.IntN(len(legal))])
		}
		if g.Over() == ReasonCheckmate || g.Over() == ReasonStalemate {
			if _, err := s.Search(g, Limits{Nodes: 100}, nil); err != ErrNoMoves {
				t.Errorf("%s: error %v, want ErrNoMoves", g.Pos.FEN(), err)
			}
		}
	}
	if searched < 20 {
		t.Errorf("only %d searches", searched)
	}
}

// The white rooks win easily; the kings have walked g1-h1-g1 and h8-g8-h8
// (PROTOCOL.md section 4: the start counts once, every later position too).
const rooksFEN = "7k/8/8/8/8/1R6/R7/6K1 w - - 0 1"

func TestLosingSideTakesRepetition(t *testing.T) {
	// Black to move: g8h8 makes the start position's third occurrence.
	g := mustGame(t, rooksFEN, "g1h1", "h8g8", "h1g1", "g8h8", "g1h1", "h8g8", "h1g1")
	res := best(t, g, Limits{Nodes: 50_000})
	if got := res.Move.UCI(); got != "g8h8" {
		t.Errorf("move %s (score %d), want the repetition g8h8", got, res.Score)
	}
	if res.Score != 0 {
		t.Errorf("score %d, want 0", res.Score)
	}
}

func TestWinningSideAvoidsRepetition(t *testing.T) {
	// The same dance started by Black, so White holds the repeating move:
	// g1h1 would make the position after Black's first move occur a third time.
	fen := "6k1/8/8/8/8/1R6/R7/7K b - - 0 1"
	g := mustGame(t, fen, "g8h8", "h1g1", "h8g8", "g1h1", "g8h8", "h1g1", "h8g8")
	if r := g.Repetitions(); r != 2 {
		t.Fatalf("position occurs %d times, want 2", r)
	}
	res := best(t, g, Limits{Nodes: 50_000})
	if got := res.Move.UCI(); got == "g1h1" {
		t.Errorf("played the repetition %s", got)
	}
	if res.Score < 300 {
		t.Errorf("score %d, want a clear win", res.Score)
	}
}

func TestFiftyMoveRule(t *testing.T) {
	// Half-move clock 99: any quiet move draws at once. Black, a rook down,
	// takes the draw; with a capture available the rule is reset, so check
	// only that the score is a draw.
	g := mustGame(t, "7k/8/8/8/8/8/R7/6K1 b - - 99 120")
	res := best(t, g, Limits{Nodes: 20_000})
	if res.Score != 0 {
		t.Errorf("score %d, want 0 (every move reaches the fifty-move rule)", res.Score)
	}
	// Mate on the hundredth half-move still wins: checkmate comes first.
	g = mustGame(t, "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 99 120")
	res = best(t, g, Limits{Nodes: 20_000})
	if res.Move.UCI() != "a1a8" || res.Mate != 1 {
		t.Errorf("move %s mate %d, want a1a8 mate 1", res.Move, res.Mate)
	}
}

func TestInsufficientMaterialDraw(t *testing.T) {
	// Black is lost unless it takes the last white pawn with its bishop:
	// then bishops-only on one colour is an immediate draw.
	g := mustGame(t, "8/8/8/8/8/5k2/6P1/2B1K2b b - - 0 1")
	res := best(t, g, Limits{Nodes: 20_000})
	if got := res.Move.UCI(); got != "h1g2" && got != "f3g2" {
		t.Errorf("move %s, want a capture of g2", got)
	}
}

func TestGameOver(t *testing.T) {
	tests := []struct {
		name  string
		fen   string
		moves []string
		want  string
	}{
		{"checkmate", "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2", []string{"d8h4"}, ReasonCheckmate},
		{"stalemate", "k7/8/8/1Q6/8/8/8/7K w - - 0 1", []string{"b5b6"}, ReasonStalemate},
		{"going on", "k7/8/8/1Q6/8/8/8/7K w - - 0 1", []string{"b5c6"}, ""},
		{"threefold", rooksFEN, []string{"g1h1", "h8g8", "h1g1", "g8h8", "g1h1", "h8g8", "h1g1", "g8h8"}, ReasonThreefoldRepetition},
		{"fifty", "7k/8/8/8/8/8/R7/6K1 w - - 99 120", []string{"a2a3"}, ReasonFiftyMoveRule},
		{"insufficient", "7k/8/8/8/8/8/6r1/6BK w - - 0 1", []string{"h1g2"}, ReasonInsufficientMaterial},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := mustGame(t, tc.fen, tc.moves...)
			if got := g.Over(); got != tc.want {
				t.Errorf("Over() = %q, want %q", got, tc.want)
			}
		})
	}
}

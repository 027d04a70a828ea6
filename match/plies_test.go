package match

import (
	"testing"

	"vesper/match/chessjs"
	"vesper/nostr"
)

func TestMaxPlies(t *testing.T) {
	for _, c := range []struct {
		kind      string
		max, half int // half: the first player's share, (max+1)/2
	}{
		{nostr.GameChess, 126 + 127*100, 6413},
		{nostr.GameGomoku, 225, 113},
		{nostr.GameConnect4, 42, 21}, // section 5.1: the longest game is 42 plies
		{"go", 0, 0},
		{"", 0, 0},
	} {
		got := MaxPlies(c.kind)
		if got != c.max || (got+1)/2 != c.half {
			t.Errorf("MaxPlies(%q) = %d (half %d), want %d (half %d)", c.kind, got, (got+1)/2, c.max, c.half)
		}
	}
}

// The chess bound rests on the fifty-move rule ending the game by itself
// at a half-move clock of 100: one quiet move from 99 ends it, from 98 not.
func TestMaxPliesChessRestsOnFiftyMoves(t *testing.T) {
	for _, c := range []struct {
		half string
		over bool
	}{{"98", false}, {"99", true}} {
		g, err := chessjs.NewGameFromFEN("4k3/8/8/8/8/8/4P3/4K2R w K - " + c.half + " 80")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.Move("h1h2"); err != nil {
			t.Fatal(err)
		}
		if o := g.Outcome(); o.Over != c.over || (c.over && o.Reason != chessjs.ReasonFiftyMoveRule) {
			t.Errorf("half-move clock %s, a rook move: %+v, want over %v by the fifty-move rule", c.half, o, c.over)
		}
	}
}

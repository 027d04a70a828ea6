package chessjs

import (
	"errors"
	"testing"
)

// fuzzPositions are positions where every kind of move exists: castling,
// promotion with and without capture, en passant, check.
var fuzzPositions = []string{
	StartFEN,
	"r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
	"r1n1k3/1P6/8/8/8/8/6p1/4K2R w K - 0 1",
	"4k3/8/8/2PpP3/8/8/8/K6b w - d6 0 2",
	"4k3/8/8/8/1N3N2/8/1N3N2/4K3 w - - 0 1",
	"4k3/8/8/8/8/8/4r3/4K3 w - - 0 1",
}

// FuzzMove feeds move strings to Parse and Move (PROTOCOL.md section 4):
// nothing panics, a refused string changes nothing and carries a typed
// error, and an accepted move is also reached by its own UCI and SAN.
func FuzzMove(f *testing.F) {
	for _, s := range []string{"e4", "e2e4", "O-O", "0-0-0", "b7b8", "bxa8=Q+", "exd6", "--", "Nbd3", "e2e4 please"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, fen := range fuzzPositions {
			g, err := NewGameFromFEN(fen)
			if err != nil {
				t.Fatal(err)
			}
			parsed, perr := g.Parse(s)
			m, err := g.Move(s)
			if (perr == nil) != (err == nil) || parsed != m {
				t.Fatalf("%s: Parse(%q) = %+v, %v but Move = %+v, %v", fen, s, parsed, perr, m, err)
			}
			if err != nil {
				var me *MoveError
				if !errors.As(err, &me) || me.Input != s || !(errors.Is(err, ErrIllegalMove) || errors.Is(err, ErrNullMove)) {
					t.Fatalf("%s: Move(%q) error %v is not a *MoveError", fen, s, err)
				}
				if g.Plies() != 0 || g.FEN() != fen {
					t.Fatalf("%s: refused Move(%q) changed the game to %s", fen, s, g.FEN())
				}
				continue
			}
			g.Outcome()
			before, _ := NewGameFromFEN(fen)
			for _, again := range []string{m.UCI(), m.SAN} {
				if got, err := before.Parse(again); err != nil || got != m {
					t.Fatalf("%s: %q plays %+v, but %q gives %+v, %v", fen, s, m, again, got, err)
				}
			}
		}
	})
}

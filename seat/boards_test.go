package seat

import (
	"context"
	"strings"
	"testing"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
)

const boardT0 = int64(1_750_000_000)

func openState(t *testing.T, kind string) *match.State {
	t.Helper()
	m := testkit.NewMatch(testkit.Key("seat-a"), nostr.SecretKey{}, kind, "", boardT0)
	st, err := match.Fold(m.ID, m.Events, nil)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// Every game the fold plays has a board, legal moves and side names here.
func TestEveryGameHasABoard(t *testing.T) {
	me := testkit.Key("seat-a").PublicKey()
	for _, g := range match.Games() {
		t.Run(g.Kind, func(t *testing.T) {
			if _, ok := boards[g.Kind]; !ok {
				t.Fatalf("no board for %s", g.Kind)
			}
			stt := (&Snapshot{State: openState(t, g.Kind)}).Status(me, boardT0+1)
			if stt.Board == "" || len(stt.LegalMoves) == 0 || stt.MyColor != g.Sides[0] {
				t.Errorf("status of a fresh %s challenge: board %q, %d legal moves, my_color %q (want %q)",
					g.Kind, stt.Board, len(stt.LegalMoves), stt.MyColor, g.Sides[0])
			}
		})
	}
}

// A game this package has no board for says so, and is not drawn as chess.
func TestUnknownGameHasNoChessBoard(t *testing.T) {
	me := testkit.Key("seat-a").PublicKey()
	st := *openState(t, nostr.GameChess)
	st.Kind = "go"
	stt := (&Snapshot{State: &st}).Status(me, boardT0+1)
	if !strings.Contains(stt.Board, `"go"`) || stt.FEN != "" || len(stt.LegalMoves) != 0 || stt.MyColor != "" {
		t.Errorf("status of a game of go: board %q, fen %q, %d legal moves, my_color %q", stt.Board, stt.FEN, len(stt.LegalMoves), stt.MyColor)
	}
}

// Gomoku's first player has the black stones, everywhere a side is named.
func TestGomokuSides(t *testing.T) {
	if a, b := Color(nostr.GameGomoku, match.First), Color(nostr.GameGomoku, match.Second); a != "black" || b != "white" {
		t.Errorf("gomoku sides %q, %q; want black, white", a, b)
	}
	if a, b := Color(nostr.GameChess, match.First), Color(nostr.GameChess, match.Second); a != "white" || b != "black" {
		t.Errorf("chess sides %q, %q; want white, black", a, b)
	}
	st := openState(t, nostr.GameGomoku)
	stt := (&Snapshot{State: st}).Status(st.First, boardT0+1)
	if !strings.Contains(stt.Board, "a b c") || strings.ContainsAny(stt.Board, "XO") {
		t.Errorf("gomoku board %q still names X and O", stt.Board)
	}
}

func TestChallengeUnknownGame(t *testing.T) {
	a := &Seat{Key: testkit.Key("seat-a")}
	for _, call := range []func() error{
		func() error { _, err := a.Challenge(context.Background(), "go", ""); return err },
		func() error { _, err := a.OpenChallenges(context.Background(), "go", false); return err },
	} {
		err := call()
		if err == nil || !strings.Contains(err.Error(), `"go"`) || !strings.Contains(err.Error(), `"chess" or "gomoku"`) {
			t.Errorf("a challenge of go: %v, want an error naming the game and the games", err)
		}
	}
}

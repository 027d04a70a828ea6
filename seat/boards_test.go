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
		if err == nil || !strings.Contains(err.Error(), `"go"`) || !strings.Contains(err.Error(), match.KindList()) {
			t.Errorf("a challenge of go: %v, want an error naming the game and the games", err)
		}
	}
}

// A Connect Four status: the text board, the columns not full, and the
// sides red (first) and yellow (second), as PROTOCOL.md section 5.1 says.
func TestConnect4Status(t *testing.T) {
	a, b := testkit.Key("seat-a"), testkit.Key("seat-b")
	m := testkit.NewMatch(a, b, nostr.GameConnect4, "", boardT0)
	m.Accept(boardT0 + 10)
	m.Play([]string{"d", "d", "d", "d", "d", "D", "C"}, boardT0+20, 10) // d is full
	st, err := match.Fold(m.ID, m.Events, nil)
	if err != nil {
		t.Fatal(err)
	}
	stt := (&Snapshot{State: st}).Status(b.PublicKey(), boardT0+200)
	var legal []string
	for _, l := range stt.LegalMoves {
		legal = append(legal, l.Move())
	}
	if got, want := strings.Join(legal, ","), "a,b,c,e,f,g"; got != want {
		t.Errorf("legal columns %s, want %s", got, want)
	}
	if stt.MyColor != "yellow" || !stt.MyTurn || stt.ToMove == nil || stt.ToMove.Color != "yellow" || stt.Ply != 8 {
		t.Errorf("my_color %q, my_turn %v, to_move %+v, ply %d", stt.MyColor, stt.MyTurn, stt.ToMove, stt.Ply)
	}
	if c := Color(nostr.GameConnect4, match.First); c != "red" {
		t.Errorf("the first player's colour %q, want red", c)
	}
	want := "6 . . . Y . . . \n" +
		"5 . . . R . . . \n" +
		"4 . . . Y . . . \n" +
		"3 . . . R . . . \n" +
		"2 . . . Y . . . \n" +
		"1 . . R R . . . \n" +
		"  a b c d e f g\n"
	if stt.Board != want {
		t.Errorf("board\n%s\nwant\n%s", stt.Board, want)
	}
	if got := strings.Join(stt.SANMoves, ","); got != "d,d,d,d,d,d,c" {
		t.Errorf("moves %s", got)
	}
}

// The seat posts a Connect Four column in its canonical form, lowercase,
// whatever the case typed; a string that is not a column goes as typed
// for the fold to refuse.
func TestConnect4MovePostedLowercase(t *testing.T) {
	a, b := testkit.Key("seat-a"), testkit.Key("seat-b")
	m := testkit.NewMatch(a, b, nostr.GameConnect4, "", boardT0)
	m.Accept(boardT0 + 10)
	st, err := match.Fold(m.ID, m.Events, nil)
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{"D": "d", "g": "g", "h": "h", "dd": "dd"} {
		if got, ref := canonical(st, in); got != want || ref != nil {
			t.Errorf("canonical(%q) = %q, %v; want %q", in, got, ref, want)
		}
	}
	if st.Plies() != 0 {
		t.Errorf("canonical played on the match's own board: %d plies", st.Plies())
	}
}

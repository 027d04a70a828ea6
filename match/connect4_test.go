package match

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"vesper/internal/testkit"
	"vesper/match/connect4"
	"vesper/match/gomoku"
	"vesper/nostr"
)

// PROTOCOL.md section 5.1 through the fold: each clause of Connect Four as
// a verifier sees it in a match's summary.

func connect4Match() *testkit.Match {
	m := testkit.NewMatch(alice, bob, nostr.GameConnect4, "", t0)
	m.Accept(t0 + 60)
	return m
}

func c4hash(moves string) string {
	h := sha256.Sum256([]byte("connect4:" + moves))
	return hex.EncodeToString(h[:])
}

func TestSection51Challenge(t *testing.T) {
	m := connect4Match()
	st := fold(t, m)
	if st.Kind != nostr.GameConnect4 || st.Accepted != true {
		t.Fatalf("kind %q accepted %v", st.Kind, st.Accepted)
	}
	// The start position: no column played yet.
	if got := st.FinalHash(); got != c4hash("") {
		t.Errorf("start final_hash %s, want sha256(\"connect4:\")", got)
	}
	if s := st.Summary(t0 + 100); s.Game != nostr.GameConnect4 {
		t.Errorf("summary game %q", s.Game)
	}
}

// Columns are normalized to lowercase in moves and in final_hash; a
// string that is not a column, and a full column, are illegal and ignored.
func TestSection51MovesThroughTheFold(t *testing.T) {
	m := connect4Match()
	acc := t0 + 60
	var bad []*nostr.Event
	m.Move(alice, 1, "D", acc+1)
	for i, s := range []string{"h", "aa", "1", "", " a", "d ", "resign!"} {
		bad = append(bad, m.Move(bob, 2, s, acc+2+int64(i)))
	}
	m.Move(bob, 2, "d", acc+20)
	m.Move(alice, 3, "d", acc+21)
	m.Move(bob, 4, "D", acc+22)
	m.Move(alice, 5, "d", acc+23)
	m.Move(bob, 6, "d", acc+24) // d holds six discs, colours alternating
	full := m.Move(alice, 7, "d", acc+27)
	fullUpper := m.Move(alice, 7, "D", acc+28)
	m.Move(alice, 7, "B", acc+29)
	st := fold(t, m)
	want := []string{"d", "d", "d", "d", "d", "d", "b"}
	if strings.Join(st.Moves, ",") != strings.Join(want, ",") {
		t.Fatalf("moves %q, want %q", st.Moves, want)
	}
	for _, ev := range append(bad, full, fullUpper) {
		if token(st, ev) != IgnIllegal {
			t.Errorf("move %q: token %q, want %s", ev.Content, token(st, ev), IgnIllegal)
		}
	}
	if st.Over {
		t.Fatalf("over after %q", st.Moves)
	}
	if got := st.FinalHash(); got != c4hash(strings.Join(want, ",")) {
		t.Errorf("final_hash %s", got)
	}
}

func TestSection51WinsEndTheGame(t *testing.T) {
	for _, c := range []struct {
		name, moves string
		winner      string
	}{
		{"horizontal", "aabbccd", First},
		{"vertical", "abababgb", Second},
		{"diagonal", "abbccdcddgd", First},
		{"anti-diagonal", "gffeededdad", First},
		{"on the 42nd disc", "fgbdgbeefbadbfcaagbaefcaefaecefbgcgccddgdd", Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := connect4Match()
			last := m.Play(strings.Split(c.moves, ""), t0+100, 10)
			after := m.Move(alice, len(c.moves)+1, "e", last+5)
			afterB := m.Move(bob, len(c.moves)+1, "e", last+6)
			st := fold(t, m)
			if !st.Over || st.Result != c.winner || st.Reason != ReasonFourInARow || st.Plies() != len(c.moves) || st.EndedAt != last {
				t.Fatalf("got over=%v result=%s reason=%s plies=%d", st.Over, st.Result, st.Reason, st.Plies())
			}
			if token(st, after) != IgnGameOver || token(st, afterB) != IgnGameOver {
				t.Errorf("a move after the end: %v", st.Ignored)
			}
			want := strings.Join(strings.Split(c.moves, ""), ",")
			if st.FinalHash() != c4hash(want) {
				t.Errorf("final_hash %s, want sha256(connect4:%s)", st.FinalHash(), want)
			}
			// A player's signature of the computed result, countersigned,
			// makes it final with the rule's reason (section 2).
			a := m.Result(alice, result(st, c.winner), last+10)
			b := m.Result(bob, result(st, c.winner), last+11)
			st = fold(t, m)
			if token(st, a) != "" || !st.Final || st.FinalEvent != b.ID || st.Reason != ReasonFourInARow {
				t.Errorf("signatures: final=%v by %s reason %s ignored %v", st.Final, st.FinalBy, st.Reason, st.Ignored)
			}
		})
	}
}

func TestSection51BoardFullIsADraw(t *testing.T) {
	m := connect4Match()
	moves := strings.Split("fdcdbfdbabebcfafggcagaecdadecdcgaebbfeefgg", "")
	last := m.Play(moves, t0+100, 10)
	after := m.Move(alice, 43, "a", last+5)
	st := fold(t, m)
	if !st.Over || st.Result != Draw || st.Reason != ReasonBoardFull || st.Plies() != 42 {
		t.Fatalf("got over=%v result=%s reason=%s plies=%d", st.Over, st.Result, st.Reason, st.Plies())
	}
	if token(st, after) != IgnGameOver {
		t.Errorf("a move after the end: %v", st.Ignored)
	}
}

// Red is the first player and moves first: the challenger's disc is ply 1.
func TestSection51RedMovesFirst(t *testing.T) {
	m := connect4Match()
	early := m.Move(bob, 1, "d", t0+100)
	st := fold(t, m)
	if token(st, early) != IgnWrongPlayer {
		t.Fatalf("the second player's ply 1: %v", st.Ignored)
	}
	if Side(nostr.GameConnect4, First) != "red" || Side(nostr.GameConnect4, Second) != "yellow" {
		t.Errorf("sides %q %q", Side(nostr.GameConnect4, First), Side(nostr.GameConnect4, Second))
	}
}

// The reason tokens are the protocol's: one board_full token for both
// games that have it.
func TestSection51ReasonTokens(t *testing.T) {
	if ReasonFourInARow != "four_in_a_row" || connect4.ReasonBoardFull != gomoku.ReasonBoardFull || ReasonBoardFull != "board_full" {
		t.Errorf("tokens %q %q %q", ReasonFourInARow, connect4.ReasonBoardFull, ReasonBoardFull)
	}
}

package connect4

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// The longest game is Cells plies, the games below were found by random
// play that avoids a line until the last disc, and are checked here.
const (
	fullDraw = "fdcdbfdbabebcfafggcagaecdadecdcgaebbfeefgg"
	lastWins = "fgbdgbeefbadbfcaagbaefcaefaecefbgcgccddgdd"
)

func play(t *testing.T, moves ...string) *Game {
	t.Helper()
	g := NewGame()
	for i, m := range moves {
		if _, err := g.Move(m); err != nil {
			t.Fatalf("ply %d %q: %v", i+1, m, err)
		}
	}
	return g
}

func split(s string) []string { return strings.Split(s, "") }

func TestSection51Columns(t *testing.T) {
	for in, want := range map[string]string{"a": "a", "A": "a", "d": "d", "G": "g", "g": "g", "C": "c"} {
		g := NewGame()
		got, err := g.Move(in)
		if err != nil || got != want {
			t.Errorf("Move(%q) = %q, %v; want %q", in, got, err, want)
		}
		if m := g.Moves(); len(m) != 1 || m[0] != want {
			t.Errorf("Move(%q): moves %q, want [%s]", in, m, want)
		}
	}
	// Every string that is not ^[a-gA-G]$ is illegal: the brief's list,
	// the neighbours of the range, and look-alikes.
	for _, bad := range []string{"h", "H", "aa", "1", "", " a", "a ", "a\n", "`", "@", "z", "d4", "resign", "ａ", "\x00"} {
		g := NewGame()
		_, err := g.Move(bad)
		var ce *ColumnError
		if !errors.As(err, &ce) || ce.Move != bad {
			t.Errorf("Move(%q) = %v, want a *ColumnError", bad, err)
		}
		if g.Plies() != 0 {
			t.Errorf("Move(%q) played a disc", bad)
		}
	}
}

func TestSection51DiscFalls(t *testing.T) {
	g := play(t, "d", "d", "D", "c")
	for _, c := range []struct {
		col, row int
		disc     uint8
	}{{3, 0, 1}, {3, 1, 2}, {3, 2, 1}, {2, 0, 2}, {3, 3, 0}, {2, 1, 0}} {
		if got := g.At(c.col, c.row); got != c.disc {
			t.Errorf("At(%d, %d) = %d, want %d", c.col, c.row, got, c.disc)
		}
	}
	if g.Height(3) != 3 || g.Height(2) != 1 || g.Height(0) != 0 {
		t.Errorf("heights %d %d %d", g.Height(3), g.Height(2), g.Height(0))
	}
}

func TestSection51FullColumn(t *testing.T) {
	g := play(t, "a", "a", "a", "a", "a", "a") // no line of four: colours alternate
	for _, m := range []string{"a", "A"} {
		if _, err := g.Move(m); err != ErrFull {
			t.Fatalf("Move(%q) into a full column = %v, want ErrFull", m, err)
		}
	}
	if g.Plies() != 6 {
		t.Fatalf("plies %d after refused moves", g.Plies())
	}
	if got, want := g.Legal(), split("bcdefg"); !slices.Equal(got, want) {
		t.Errorf("Legal() = %q, want %q", got, want)
	}
	if _, err := g.Move("b"); err != nil {
		t.Errorf("another column after a full one: %v", err)
	}
}

func TestSection51FourInARow(t *testing.T) {
	cases := []struct {
		name  string
		moves string
		win   uint8
	}{
		{"horizontal", "aabbccd", 1},
		{"vertical", "abababgb", 2},
		{"diagonal", "abbccdcddgd", 1},      // a1 b2 c3 d4
		{"anti-diagonal", "gffeededdad", 1}, // g1 f2 e3 d4
		// Four or more: the middle disc makes a line of five.
		{"five", "aabbddeec", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ms := split(c.moves)
			g := play(t, ms[:len(ms)-1]...)
			if over, _, _ := g.Outcome(); over {
				t.Fatalf("over before the last move")
			}
			if _, err := g.Move(ms[len(ms)-1]); err != nil {
				t.Fatal(err)
			}
			over, w, r := g.Outcome()
			if !over || w != c.win || r != ReasonFour {
				t.Fatalf("got over=%v winner=%d %q, want %d %s", over, w, r, c.win, ReasonFour)
			}
			if g.Legal() != nil {
				t.Errorf("legal moves after the end: %q", g.Legal())
			}
		})
	}
}

func TestSection51BoardFull(t *testing.T) {
	ms := split(fullDraw)
	g := play(t, ms[:Cells-1]...)
	if over, _, _ := g.Outcome(); over {
		t.Fatal("over at 41 discs")
	}
	if got := g.Legal(); len(got) != 1 {
		t.Fatalf("Legal() at 41 discs = %q", got)
	}
	if _, err := g.Move(ms[Cells-1]); err != nil {
		t.Fatal(err)
	}
	if over, w, r := g.Outcome(); !over || w != 0 || r != ReasonBoardFull {
		t.Fatalf("42 discs: got %v %d %q, want a draw by %s", over, w, r, ReasonBoardFull)
	}
}

// A line made by the 42nd disc is a win, not a draw: four_in_a_row comes
// before board_full.
func TestSection51FourOnTheLastDisc(t *testing.T) {
	ms := split(lastWins)
	g := play(t, ms[:Cells-1]...)
	if over, _, _ := g.Outcome(); over {
		t.Fatal("over at 41 discs")
	}
	if _, err := g.Move(ms[Cells-1]); err != nil {
		t.Fatal(err)
	}
	if over, w, r := g.Outcome(); !over || w != 2 || r != ReasonFour {
		t.Fatalf("42nd disc: got %v %d %q, want yellow by %s", over, w, r, ReasonFour)
	}
}

func TestSection51NoMoveAfterTheEnd(t *testing.T) {
	for _, moves := range []string{"aabbccd", fullDraw} {
		g := play(t, split(moves)...)
		n := g.Plies()
		if _, err := g.Move("e"); err != ErrOver {
			t.Errorf("after %s: Move = %v, want ErrOver", moves, err)
		}
		if g.Plies() != n {
			t.Errorf("a disc was played after the end")
		}
	}
}

func TestHashInputIsNormalizedColumns(t *testing.T) {
	g := play(t, "D", "c", "G")
	if got, want := g.HashInput(), "connect4:d,c,g"; got != want {
		t.Errorf("HashInput() = %q, want %q", got, want)
	}
	if got := NewGame().HashInput(); got != "connect4:" {
		t.Errorf("start HashInput() = %q", got)
	}
}

func TestCloneIsIndependent(t *testing.T) {
	g := play(t, "d")
	c := g.Clone()
	if _, err := c.Move("d"); err != nil {
		t.Fatal(err)
	}
	if g.Plies() != 1 || g.Height(3) != 1 || g.At(3, 1) != 0 {
		t.Errorf("the original changed: %d plies, height %d", g.Plies(), g.Height(3))
	}
}

func TestString(t *testing.T) {
	got := play(t, "d", "d", "c").String()
	want := "6 . . . . . . . \n" +
		"5 . . . . . . . \n" +
		"4 . . . . . . . \n" +
		"3 . . . . . . . \n" +
		"2 . . . Y . . . \n" +
		"1 . . R R . . . \n" +
		"  a b c d e f g\n"
	if got != want {
		t.Errorf("String():\n%s\nwant\n%s", got, want)
	}
}

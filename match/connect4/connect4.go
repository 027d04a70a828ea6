// Package connect4 is Connect Four as PROTOCOL.md section 5.1 (revision 4)
// decides it: 7 columns by 6 rows standing upright, the first player (Red)
// moves first, a move names a column and the disc falls to its lowest
// empty cell, four or more of the mover's discs in a line win, the 42nd
// disc without such a line is a draw.
package connect4

import (
	"errors"
	"fmt"
	"strings"
)

// The board's size: Cols columns a..g, Rows rows 1..6 from the bottom.
const (
	Cols = 7
	Rows = 6
	// Cells is the longest game in plies: every cell holds a disc.
	Cells = Cols * Rows
	// Line is how many discs in a line win.
	Line = 4
)

// Outcome reasons, as the protocol spells them.
const (
	ReasonFour      = "four_in_a_row"
	ReasonBoardFull = "board_full"
)

// The sides, first and second, as the protocol names them.
const (
	Red    = "red"
	Yellow = "yellow"
)

// ErrFull is returned for a move into a column that holds Rows discs.
var ErrFull = errors.New("connect4: column is full")

// ErrOver is returned for a move after the game ended.
var ErrOver = errors.New("connect4: game is over")

// ColumnError is a move string that is not a column.
type ColumnError struct{ Move string }

func (e *ColumnError) Error() string {
	return fmt.Sprintf("connect4: %q is not a column a..g", e.Move)
}

// ColumnName is the normalized form of column c (0..6): "a".."g".
func ColumnName(c int) string { return string(rune('a' + c)) }

// ParseColumn accepts exactly ^[a-gA-G]$ and returns the column 0..6.
func ParseColumn(s string) (int, error) {
	if len(s) != 1 {
		return 0, &ColumnError{s}
	}
	switch c := s[0]; {
	case c >= 'a' && c < 'a'+Cols:
		return int(c - 'a'), nil
	case c >= 'A' && c < 'A'+Cols:
		return int(c - 'A'), nil
	}
	return 0, &ColumnError{s}
}

// Game is a Connect Four game in progress. Discs: 0 empty, 1 first
// player (Red), 2 second (Yellow).
type Game struct {
	board  [Cols][Rows]uint8
	height [Cols]int
	moves  []string
	over   bool
	win    uint8 // 1 or 2 when a line of four was made
}

// NewGame starts an empty board.
func NewGame() *Game { return &Game{} }

// Clone returns an independent copy.
func (g *Game) Clone() *Game {
	c := *g
	c.moves = append([]string(nil), g.moves...)
	return &c
}

// Parse checks a move without playing it and returns its column.
func (g *Game) Parse(s string) (int, error) {
	if g.over {
		return 0, ErrOver
	}
	c, err := ParseColumn(s)
	if err != nil {
		return 0, err
	}
	if g.height[c] == Rows {
		return 0, ErrFull
	}
	return c, nil
}

// Move drops a disc of the side to move into column s and returns the
// normalized column.
func (g *Game) Move(s string) (string, error) {
	c, err := g.Parse(s)
	if err != nil {
		return "", err
	}
	disc := uint8(len(g.moves)%2 + 1)
	r := g.height[c]
	g.board[c][r] = disc
	g.height[c]++
	n := ColumnName(c)
	g.moves = append(g.moves, n)
	// The line comes first: a fourth disc on the last cell wins.
	if g.lineThrough(c, r, disc) >= Line {
		g.over, g.win = true, disc
	} else if len(g.moves) == Cells {
		g.over = true
	}
	return n, nil
}

// lineThrough returns the longest line of disc through (c, r).
func (g *Game) lineThrough(c, r int, disc uint8) int {
	best := 0
	for _, d := range [4][2]int{{1, 0}, {0, 1}, {1, 1}, {1, -1}} {
		n := 1
		for _, sgn := range [2]int{1, -1} {
			x, y := c+sgn*d[0], r+sgn*d[1]
			for x >= 0 && x < Cols && y >= 0 && y < Rows && g.board[x][y] == disc {
				n++
				x, y = x+sgn*d[0], y+sgn*d[1]
			}
		}
		best = max(best, n)
	}
	return best
}

// Legal returns the columns a disc may go into, a..g, none once the game
// is over.
func (g *Game) Legal() []string {
	if g.over {
		return nil
	}
	var out []string
	for c := 0; c < Cols; c++ {
		if g.height[c] < Rows {
			out = append(out, ColumnName(c))
		}
	}
	return out
}

// Moves returns the normalized moves so far.
func (g *Game) Moves() []string { return g.moves }

// Plies is the number of discs played.
func (g *Game) Plies() int { return len(g.moves) }

// Height is the number of discs in column c (0..6).
func (g *Game) Height(c int) int { return g.height[c] }

// At returns the disc at column c, row r (0 the bottom): 0 empty, 1 the
// first player's, 2 the second's.
func (g *Game) At(c, r int) uint8 { return g.board[c][r] }

// Outcome reports whether the game is over, the winner (1 or 2, 0 for a
// draw) and the reason.
func (g *Game) Outcome() (over bool, winner uint8, reason string) {
	switch {
	case !g.over:
		return false, 0, ""
	case g.win != 0:
		return true, g.win, ReasonFour
	}
	return true, 0, ReasonBoardFull
}

// HashInput is the string whose sha256 is the final_hash (section 1).
func (g *Game) HashInput() string { return "connect4:" + strings.Join(g.moves, ",") }

// String draws the board, row 6 at the top: R for the first player's
// (red) discs, Y for the second's (yellow), . for an empty cell.
func (g *Game) String() string {
	var b strings.Builder
	for r := Rows - 1; r >= 0; r-- {
		fmt.Fprintf(&b, "%d ", r+1)
		for c := 0; c < Cols; c++ {
			b.WriteByte(".RY"[g.board[c][r]])
			b.WriteByte(' ')
		}
		b.WriteByte('\n')
	}
	b.WriteString("  a b c d e f g\n")
	return b.String()
}

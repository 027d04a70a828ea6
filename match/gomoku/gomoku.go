// Package gomoku is freestyle gomoku as PROTOCOL.md section 5 decides it:
// a 15x15 board, the first player moves first, five or more stones in a line
// win, a full board is a draw.
package gomoku

import (
	"errors"
	"fmt"
	"strings"
)

// Size is the board's side.
const Size = 15

// Outcome reasons, as the protocol spells them.
const (
	ReasonFive      = "five_in_a_row"
	ReasonBoardFull = "board_full"
)

// ErrOccupied is returned for a move onto a stone.
var ErrOccupied = errors.New("gomoku: point is occupied")

// PointError is a move string that is not a point.
type PointError struct{ Move string }

func (e *PointError) Error() string {
	return fmt.Sprintf("gomoku: %q is not a point a1..o15", e.Move)
}

// Point is a board point, column 0..14 (a..o), row 0..14 (1..15).
type Point struct{ Col, Row int }

// String is the normalized form: lowercase column, row without zeros.
func (p Point) String() string { return fmt.Sprintf("%c%d", 'a'+p.Col, p.Row+1) }

// ParsePoint accepts exactly ^[a-oA-O](1[0-5]|[1-9])$.
func ParsePoint(s string) (Point, error) {
	if len(s) < 2 || len(s) > 3 {
		return Point{}, &PointError{s}
	}
	c := s[0]
	switch {
	case c >= 'a' && c <= 'o':
		c -= 'a'
	case c >= 'A' && c <= 'O':
		c -= 'A'
	default:
		return Point{}, &PointError{s}
	}
	r := s[1:]
	row := 0
	switch {
	case len(r) == 1 && r[0] >= '1' && r[0] <= '9':
		row = int(r[0] - '0')
	case len(r) == 2 && r[0] == '1' && r[1] >= '0' && r[1] <= '5':
		row = 10 + int(r[1]-'0')
	default:
		return Point{}, &PointError{s}
	}
	return Point{Col: int(c), Row: row - 1}, nil
}

// Game is a gomoku game in progress. Stones: 0 empty, 1 first, 2 second.
type Game struct {
	board [Size][Size]uint8
	moves []string
	over  bool
	win   uint8 // 1 or 2 when a line of five was made
}

// NewGame starts an empty board.
func NewGame() *Game { return &Game{} }

// Clone returns an independent copy.
func (g *Game) Clone() *Game {
	c := *g
	c.moves = append([]string(nil), g.moves...)
	return &c
}

// Parse checks a move without playing it and returns its normalized form.
func (g *Game) Parse(s string) (Point, error) {
	p, err := ParsePoint(s)
	if err != nil {
		return Point{}, err
	}
	if g.board[p.Col][p.Row] != 0 {
		return Point{}, ErrOccupied
	}
	return p, nil
}

// Move plays s for the side to move and returns the normalized point.
func (g *Game) Move(s string) (string, error) {
	if g.over {
		return "", errors.New("gomoku: game is over")
	}
	p, err := g.Parse(s)
	if err != nil {
		return "", err
	}
	stone := uint8(len(g.moves)%2 + 1)
	g.board[p.Col][p.Row] = stone
	n := p.String()
	g.moves = append(g.moves, n)
	if g.lineThrough(p, stone) >= 5 {
		g.over, g.win = true, stone
	} else if len(g.moves) == Size*Size {
		g.over = true
	}
	return n, nil
}

// lineThrough returns the longest line of stone through p.
func (g *Game) lineThrough(p Point, stone uint8) int {
	best := 0
	for _, d := range [4][2]int{{1, 0}, {0, 1}, {1, 1}, {1, -1}} {
		n := 1
		for _, sgn := range [2]int{1, -1} {
			c, r := p.Col+sgn*d[0], p.Row+sgn*d[1]
			for c >= 0 && c < Size && r >= 0 && r < Size && g.board[c][r] == stone {
				n++
				c, r = c+sgn*d[0], r+sgn*d[1]
			}
		}
		if n > best {
			best = n
		}
	}
	return best
}

// Moves returns the normalized moves so far.
func (g *Game) Moves() []string { return g.moves }

// Plies is the number of stones played.
func (g *Game) Plies() int { return len(g.moves) }

// At returns the stone at a point: 0 empty, 1 first player, 2 second.
func (g *Game) At(p Point) uint8 { return g.board[p.Col][p.Row] }

// Outcome reports whether the game is over, the winner (1 or 2, 0 for a
// draw) and the reason.
func (g *Game) Outcome() (over bool, winner uint8, reason string) {
	switch {
	case !g.over:
		return false, 0, ""
	case g.win != 0:
		return true, g.win, ReasonFive
	}
	return true, 0, ReasonBoardFull
}

// HashInput is the string whose sha256 is the final_hash (section 1).
func (g *Game) HashInput() string { return "gomoku:" + strings.Join(g.moves, ",") }

// String draws the board, row 15 at the top: B for the first player's
// (black) stones, W for the second's (white), . for an empty point.
func (g *Game) String() string {
	var b strings.Builder
	for r := Size - 1; r >= 0; r-- {
		fmt.Fprintf(&b, "%2d ", r+1)
		for c := 0; c < Size; c++ {
			b.WriteByte(".BW"[g.board[c][r]])
			b.WriteByte(' ')
		}
		b.WriteByte('\n')
	}
	b.WriteString("   a b c d e f g h i j k l m n o\n")
	return b.String()
}

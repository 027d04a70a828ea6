package connect4

import (
	"fmt"
	"math/bits"
)

// The board's size (PROTOCOL.md section 5.1).
const (
	Width  = 7
	Height = 6
	Cells  = Width * Height
)

// stride is the bits per column: Height cells and one spare bit on top.
const stride = Height + 1

// Bitboard masks: bottom holds the lowest cell of every column, full every
// cell of the board.
const (
	bottom uint64 = 1 | 1<<7 | 1<<14 | 1<<21 | 1<<28 | 1<<35 | 1<<42
	full          = bottom * (1<<Height - 1)
)

func bottomOf(col int) uint64 { return 1 << (col * stride) }
func topOf(col int) uint64    { return 1 << (Height - 1 + col*stride) }
func columnOf(col int) uint64 { return (1<<Height - 1) << (col * stride) }

// Position is a Connect Four position. own holds the discs of the side to
// move, all every disc; moves counts the discs played.
type Position struct {
	own, all uint64
	moves    int
}

// Moves is the number of discs played.
func (p Position) Moves() int { return p.moves }

// Key identifies the position: own plus all sets, in each column, the bit
// above its top disc and the side to move's discs below it, which is a
// unique encoding in 49 bits.
func (p Position) Key() uint64 { return p.own + p.all }

// CanPlay reports whether column col (0-6) has room.
func (p Position) CanPlay(col int) bool {
	return col >= 0 && col < Width && p.all&topOf(col) == 0
}

// Play drops the mover's disc in column col, which must have room.
func (p *Position) Play(col int) {
	p.own ^= p.all
	p.all |= p.all + bottomOf(col)
	p.moves++
}

// playBit plays the single-cell move m (a cell of possible()).
func (p *Position) playBit(m uint64) {
	p.own ^= p.all
	p.all |= m
	p.moves++
}

// cell is the bit of the lowest empty cell of col (zero if full).
func (p Position) cell(col int) uint64 {
	return (p.all + bottomOf(col)) & columnOf(col)
}

// Wins reports whether the mover wins by playing col.
func (p Position) Wins(col int) bool {
	return p.winning()&p.cell(col) != 0
}

// LastWon reports whether the disc just played made four in a row (the
// discs of the player who moved last are all^own).
func (p Position) LastWon() bool { return four(p.own ^ p.all) }

// Full reports whether every cell holds a disc.
func (p Position) Full() bool { return p.moves == Cells }

// four reports whether the discs b contain four in a line.
func four(b uint64) bool {
	for _, s := range [4]uint{1, stride, stride - 1, stride + 1} {
		m := b & (b >> s)
		if m&(m>>(2*s)) != 0 {
			return true
		}
	}
	return false
}

// threats are the cells (empty or not) where a disc of b would complete
// four with three discs of b: vertical, horizontal and both diagonals.
func threats(b, all uint64) uint64 {
	// vertical: three above each other, the cell above them
	r := (b << 1) & (b << 2) & (b << 3)
	for _, s := range [3]uint{stride, stride - 1, stride + 1} {
		p := (b << s) & (b << (2 * s))
		r |= p & (b << (3 * s))
		r |= p & (b >> s)
		p = (b >> s) & (b >> (2 * s))
		r |= p & (b << s)
		r |= p & (b >> (3 * s))
	}
	return r & (full ^ all)
}

// possible are the cells a disc can go to now, one per column with room.
func (p Position) possible() uint64 { return (p.all + bottom) & full }

// winning are the empty cells that would complete a four for the mover.
func (p Position) winning() uint64 { return threats(p.own, p.all) }

// opponentWinning are those of the opponent.
func (p Position) opponentWinning() uint64 { return threats(p.own^p.all, p.all) }

// CanWinNext reports whether the mover has a winning move now.
func (p Position) CanWinNext() bool { return p.winning()&p.possible() != 0 }

// nonLosing are the playable cells after which the opponent cannot win at
// once, assuming the mover cannot win now: if the opponent threatens a
// playable cell the mover must take it (two such cells and nothing
// helps), and a disc under an opponent's threat hands it over.
func (p Position) nonLosing() uint64 {
	poss := p.possible()
	opp := p.opponentWinning()
	forced := poss & opp
	if forced != 0 {
		if forced&(forced-1) != 0 {
			return 0
		}
		poss = forced
	}
	return poss &^ (opp >> 1)
}

// colBit is the column of the single cell m.
func colBit(m uint64) int { return bits.TrailingZeros64(m) / stride }

// ParseColumn reads a move as PROTOCOL.md section 5.1 writes it, ^[a-gA-G]$,
// and returns its column from 0.
func ParseColumn(s string) (int, error) {
	if len(s) != 1 {
		return 0, fmt.Errorf("connect4: bad column %q", s)
	}
	c := s[0] | 0x20
	if c < 'a' || c > 'g' {
		return 0, fmt.Errorf("connect4: bad column %q", s)
	}
	return int(c - 'a'), nil
}

// ColumnName is the normalized name of column col (0-6): "a" to "g".
func ColumnName(col int) string { return string(rune('a' + col)) }

// OverError is returned for a game that has already ended; Reason is the
// token of PROTOCOL.md section 1, four_in_a_row or board_full.
type OverError struct {
	Reason string
	Ply    int // the move that ended it, from 1
}

func (e *OverError) Error() string {
	return fmt.Sprintf("connect4: the game is over: %s after move %d", e.Reason, e.Ply)
}

// FromMoves replays moves (columns) from the empty board. It fails on a
// bad column, a full column, or a move after the game ended (an
// *OverError); a game that ends on the last move is returned with no error
// and LastWon or Full set.
func FromMoves(moves []string) (Position, error) {
	var p Position
	for i, m := range moves {
		if p.moves > 0 && p.LastWon() {
			return p, &OverError{Reason: "four_in_a_row", Ply: i}
		}
		if p.Full() {
			return p, &OverError{Reason: "board_full", Ply: i}
		}
		col, err := ParseColumn(m)
		if err != nil {
			return p, fmt.Errorf("move %d: %w", i+1, err)
		}
		if !p.CanPlay(col) {
			return p, fmt.Errorf("connect4: move %d: column %s is full", i+1, ColumnName(col))
		}
		p.Play(col)
	}
	return p, nil
}

// Over returns the reason token when the game has ended in p, else "".
func (p Position) Over() string {
	switch {
	case p.moves > 0 && p.LastWon():
		return "four_in_a_row"
	case p.Full():
		return "board_full"
	}
	return ""
}

// Cell reports the disc at column col, row row (0 the bottom): 0 empty, 1
// the first player's (Red), 2 the second's.
func (p Position) Cell(col, row int) int {
	b := uint64(1) << (col*stride + row)
	if p.all&b == 0 {
		return 0
	}
	mine := p.own&b != 0
	// own is the side to move's: the first player's when moves is even.
	if mine == (p.moves%2 == 0) {
		return 1
	}
	return 2
}

// String draws the board, the top row first: "." empty, "x" Red, "o"
// Yellow.
func (p Position) String() string {
	var b []byte
	for row := Height - 1; row >= 0; row-- {
		for col := range Width {
			b = append(b, ".xo"[p.Cell(col, row)])
		}
		b = append(b, '\n')
	}
	return string(b)
}

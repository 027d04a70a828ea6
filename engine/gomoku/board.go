package gomoku

import (
	"fmt"
	"strings"
)

// Size is the side of the board.
const Size = 15

// The board is padded with four wall cells on each side so that a line
// window never leaves the array.
const (
	pad    = 4
	stride = Size + 2*pad
	cells  = stride * stride
)

const (
	empty int8 = 0
	black int8 = 1 // the first player
	white int8 = 2
	wall  int8 = 3
)

// steps are the four line directions in padded coordinates.
var steps = [4]int{1, stride, stride + 1, stride - 1}

func at(x, y int) int { return (y+pad)*stride + x + pad }

func coords(i int) (x, y int) { return i%stride - pad, i/stride - pad }

// ParsePoint reads a point as PROTOCOL.md section 5 writes it:
// ^[a-oA-O](1[0-5]|[1-9])$. It returns the column and row from 0.
func ParsePoint(s string) (x, y int, err error) {
	fail := func() (int, int, error) { return 0, 0, fmt.Errorf("gomoku: bad point %q", s) }
	if len(s) < 2 || len(s) > 3 {
		return fail()
	}
	c := s[0] | 0x20
	if c < 'a' || c > 'o' {
		return fail()
	}
	row := 0
	switch {
	case len(s) == 2 && s[1] >= '1' && s[1] <= '9':
		row = int(s[1] - '0')
	case len(s) == 3 && s[1] == '1' && s[2] >= '0' && s[2] <= '5':
		row = 10 + int(s[2]-'0')
	default:
		return fail()
	}
	return int(c - 'a'), row - 1, nil
}

// PointString writes column x and row y (from 0) in normalized form, "h8".
func PointString(x, y int) string {
	return fmt.Sprintf("%c%d", 'a'+x, y+1)
}

func pointName(i int) string { return PointString(coords(i)) }

// position is the board with what the evaluation keeps up to date.
type position struct {
	cell   [cells]int8
	near   [cells]uint8 // stones within two points, both colours
	side   int8         // to move
	stones int
	// windows[w][c] counts colour c's stones in five-point window w, and
	// score is the sum of windowWeight over windows held by one colour
	// alone, first player's minus second's.
	windows [][3]uint8
	score   int
}

func newPosition() *position {
	p := &position{side: black, windows: make([][3]uint8, len(geo.windows))}
	for i := range p.cell {
		p.cell[i] = wall
	}
	for _, i := range geo.points {
		p.cell[i] = empty
	}
	return p
}

// fromMoves replays moves, checking each as the protocol does.
func fromMoves(moves []string) (*position, error) {
	p := newPosition()
	for n, s := range moves {
		x, y, err := ParsePoint(s)
		if err != nil {
			return nil, fmt.Errorf("gomoku: move %d: %w", n+1, err)
		}
		i := at(x, y)
		if p.cell[i] != empty {
			return nil, fmt.Errorf("gomoku: move %d: %s is occupied", n+1, strings.ToLower(s))
		}
		if p.stones > 0 && p.fiveAnywhere(other(p.side)) {
			return nil, fmt.Errorf("gomoku: move %d: %w", n+1, &OverError{Reason: "five_in_a_row"})
		}
		p.play(i)
	}
	return p, nil
}

func other(c int8) int8 { return 3 - c }

var windowWeight = [6]int{0, 1, 8, 60, 600, 20000}

func windowValue(w [3]uint8) int {
	switch {
	case w[black] > 0 && w[white] > 0:
		return 0
	case w[black] > 0:
		return windowWeight[w[black]]
	default:
		return -windowWeight[w[white]]
	}
}

func (p *position) play(i int) {
	c := p.side
	for _, w := range geo.pointWindows[i] {
		p.score -= windowValue(p.windows[w])
		p.windows[w][c]++
		p.score += windowValue(p.windows[w])
	}
	p.cell[i] = c
	for _, j := range geo.neighbours[i] {
		p.near[j]++
	}
	p.stones++
	p.side = other(c)
}

func (p *position) undo(i int) {
	c := p.cell[i]
	for _, w := range geo.pointWindows[i] {
		p.score -= windowValue(p.windows[w])
		p.windows[w][c]--
		p.score += windowValue(p.windows[w])
	}
	p.cell[i] = empty
	for _, j := range geo.neighbours[i] {
		p.near[j]--
	}
	p.stones--
	p.side = c
}

// runThrough is the length of colour c's line through i along step d,
// counting i as c's.
func (p *position) runThrough(i, d int, c int8) int {
	n := 1
	for j := i + d; p.cell[j] == c; j += d {
		n++
	}
	for j := i - d; p.cell[j] == c; j -= d {
		n++
	}
	return n
}

// fiveAnywhere reports whether c already has five in a row.
func (p *position) fiveAnywhere(c int8) bool {
	for _, i := range geo.points {
		if p.cell[i] == c {
			for _, d := range steps {
				if p.runThrough(i, d, c) >= 5 {
					return true
				}
			}
		}
	}
	return false
}

// fivePointsThrough appends the empty points on the lines through i where
// c would make five (used after c plays at i).
func (p *position) fivePointsThrough(i int, c int8, out []int) []int {
	for _, d := range steps {
		for k := -4; k <= 4; k++ {
			j := i + k*d
			if k == 0 || p.cell[j] != empty || p.runThrough(j, d, c) < 5 {
				continue
			}
			dup := false
			for _, o := range out {
				dup = dup || o == j
			}
			if !dup {
				out = append(out, j)
			}
		}
	}
	return out
}

// windowKey encodes the eight cells around i on step d as seen by c:
// two bits each, 0 empty, 1 c's stone, 2 blocked (the other colour or the wall).
func (p *position) windowKey(i, d int, c int8) int {
	code := &geo.code[c]
	return int(code[p.cell[i-4*d]]) |
		int(code[p.cell[i-3*d]])<<2 |
		int(code[p.cell[i-2*d]])<<4 |
		int(code[p.cell[i-d]])<<6 |
		int(code[p.cell[i+d]])<<8 |
		int(code[p.cell[i+2*d]])<<10 |
		int(code[p.cell[i+3*d]])<<12 |
		int(code[p.cell[i+4*d]])<<14
}

package analysis

import (
	"fmt"

	"vesper/match"
	"vesper/match/gomoku"
)

// gomokuEngine names the threat check that grades gomoku; Version changes
// when a grade would.
var gomokuEngine = Engine{Name: "vesper threats", Version: "1"}

// Gomoku grades are exact or absent (PROTOCOL.md section 5: 15x15, five or
// more in a line wins, the first player, Black, moves first). With M the
// mover and O the opponent:
//
//   - M can make five: playing one is best; anything else misses a win in
//     one, a blunder (Best: the five missed).
//   - Otherwise a move loses at once when afterwards O can make five, or
//     (M having no five of its own to make first) O can play a stone that
//     leaves two points each making five: an open four, or two fours,
//     which one stone cannot both stop. A move that loses at once when
//     another would not is a blunder (Best: such another, the threat's
//     own point when that works); the only move that does not is best.
//   - Everything else is unknown: a position where every move loses at
//     once was lost before (the earlier move is the blunder), and a quiet
//     move needs a search to judge, which this check does not guess at.
func gradeGomoku(st *match.State) (*Game, error) {
	g := gomoku.NewGame()
	var b board
	moves := make([]Move, len(st.Moves))
	for i, mv := range st.Moves {
		p, err := gomoku.ParsePoint(mv)
		if err != nil {
			return nil, fmt.Errorf("analysis: move %d: %w", i+1, err)
		}
		if _, err := g.Move(mv); err != nil {
			return nil, fmt.Errorf("analysis: move %d %q: %w", i+1, mv, err)
		}
		me := uint8(i%2 + 1)
		tag, best := b.gradeMove(p, me)
		moves[i] = Move{Ply: i + 1, Move: p.String(), Side: stoneSide(me), Best: best, Tag: tag}
		b[p.Col][p.Row] = me
	}
	return &Game{Format: FormatVersion, Match: st.Match, Game: st.Kind, Status: StatusDone,
		Engine: gomokuEngine, Moves: moves, Players: players(st, moves, stoneSide(1), stoneSide(2))}, nil
}

func stoneSide(stone uint8) string {
	if stone == 1 {
		return "black"
	}
	return "white"
}

// board is a gomoku position: 0 empty, 1 the first player's, 2 the second's.
type board [gomoku.Size][gomoku.Size]uint8

var directions = [4][2]int{{1, 0}, {0, 1}, {1, 1}, {1, -1}}

func onBoard(c, r int) bool { return c >= 0 && c < gomoku.Size && r >= 0 && r < gomoku.Size }

// run is the length of the line of stone through (c, r) along d if stone
// stood there.
func (b *board) run(c, r int, d [2]int, stone uint8) int {
	n := 1
	for _, s := range [2]int{1, -1} {
		x, y := c+s*d[0], r+s*d[1]
		for onBoard(x, y) && b[x][y] == stone {
			n++
			x, y = x+s*d[0], y+s*d[1]
		}
	}
	return n
}

// makesFive reports whether stone on the empty point (c, r) makes five or
// more in a line.
func (b *board) makesFive(c, r int, stone uint8) bool {
	for _, d := range directions {
		if b.run(c, r, d, stone) >= 5 {
			return true
		}
	}
	return false
}

// fives lists the empty points where stone makes five, in board order
// (a1, a2, ..., b1, ...).
func (b *board) fives(stone uint8) []gomoku.Point {
	var out []gomoku.Point
	for c := range gomoku.Size {
		for r := range gomoku.Size {
			if b[c][r] == 0 && b.makesFive(c, r, stone) {
				out = append(out, gomoku.Point{Col: c, Row: r})
			}
		}
	}
	return out
}

// doubleFour finds, for a stone with no five to make, an empty point where
// it would leave two points each making five, first in board order. Any
// five made after such a stone runs through it, so only the points on its
// four lines, at most four away, need looking at.
func (b *board) doubleFour(stone uint8) (gomoku.Point, bool) {
	for c := range gomoku.Size {
		for r := range gomoku.Size {
			if b[c][r] != 0 || !b.nearThree(c, r, stone) {
				continue
			}
			b[c][r] = stone
			n := 0
			for _, d := range directions {
				for k := -4; k <= 4 && n < 2; k++ {
					x, y := c+k*d[0], r+k*d[1]
					if k != 0 && onBoard(x, y) && b[x][y] == 0 && b.run(x, y, d, stone) >= 5 {
						n++
					}
				}
			}
			b[c][r] = 0
			if n >= 2 {
				return gomoku.Point{Col: c, Row: r}, true
			}
		}
	}
	return gomoku.Point{}, false
}

// nearThree reports whether some line through the empty point (c, r)
// holds three stones of stone within four points of it: a five through
// (c, r) needs four of them in one window of five, so without three no
// stone there makes even one four. It spares doubleFour most points.
func (b *board) nearThree(c, r int, stone uint8) bool {
	for _, d := range directions {
		n := 0
		for k := -4; k <= 4; k++ {
			x, y := c+k*d[0], r+k*d[1]
			if k != 0 && onBoard(x, y) && b[x][y] == stone {
				n++
			}
		}
		if n >= 3 {
			return true
		}
	}
	return false
}

// lostAtOnce reports whether me, having just moved, loses by force on the
// opponent's next stone or the one after: the opponent makes five, or
// (me having no five to make first) plays a double four.
func (b *board) lostAtOnce(me uint8) bool {
	opp := 3 - me
	if len(b.fives(opp)) > 0 {
		return true
	}
	if len(b.fives(me)) > 0 {
		return false
	}
	_, ok := b.doubleFour(opp)
	return ok
}

// escapes reports whether playing p leaves me not lost at once.
func (b *board) escapes(p gomoku.Point, me uint8) bool {
	b[p.Col][p.Row] = me
	defer func() { b[p.Col][p.Row] = 0 }()
	return !b.lostAtOnce(me)
}

// gradeMove grades me playing p on b (before the move).
func (b *board) gradeMove(p gomoku.Point, me uint8) (Tag, string) {
	if wins := b.fives(me); len(wins) > 0 {
		for _, w := range wins {
			if w == p {
				return TagBest, ""
			}
		}
		return TagBlunder, wins[0].String()
	}
	opp := 3 - me
	// The opponent's threats now: a stone of ours never helps them, so
	// without one no move of ours can lose at once.
	threat, threatened := gomoku.Point{}, false
	if f := b.fives(opp); len(f) > 0 {
		threat, threatened = f[0], true
	} else if q, ok := b.doubleFour(opp); ok {
		threat, threatened = q, true
	}
	if !threatened {
		return TagUnknown, ""
	}
	if !b.escapes(p, me) {
		// Was there a way out? The threat's own point first: it is the
		// natural answer, and usually the one.
		if b[threat.Col][threat.Row] == 0 && b.escapes(threat, me) {
			return TagBlunder, threat.String()
		}
		if q, ok := b.anotherEscape(p, me); ok {
			return TagBlunder, q.String()
		}
		return TagUnknown, "" // lost before this move
	}
	if _, ok := b.anotherEscape(p, me); ok {
		return TagUnknown, ""
	}
	return TagBest, "" // the only move that does not lose at once
}

// anotherEscape finds a move other than p that is not lost at once.
func (b *board) anotherEscape(p gomoku.Point, me uint8) (gomoku.Point, bool) {
	for c := range gomoku.Size {
		for r := range gomoku.Size {
			q := gomoku.Point{Col: c, Row: r}
			if q != p && b[c][r] == 0 && b.escapes(q, me) {
				return q, true
			}
		}
	}
	return gomoku.Point{}, false
}

package sim

import (
	"math/rand/v2"
	"strings"

	"vesper/match/chessjs"
	"vesper/match/gomoku"
)

// The simulated agents play weakly but not blindly, so that games end in
// all the ways the protocol knows: a chess agent always takes a mate in one
// and prefers captures half the time (a fifth with Config.Long) (which brings insufficient material
// and the fifty-move rule within reach); a gomoku agent completes its own
// five, blocks the opponent's, makes or blocks fours, and otherwise plays
// near the lines on the board with some randomness.

// chessMove picks a legal move; san reports the SAN spelling, which agents
// sometimes post instead of UCI.
func chessMove(g *chessjs.Game, r *rand.Rand, capture float64) (uci, san string, ok bool) {
	moves := g.LegalMoves()
	if len(moves) == 0 {
		return "", "", false
	}
	var captures []chessjs.Move
	for _, m := range moves {
		if strings.HasSuffix(m.SAN, "#") {
			return m.UCI(), m.SAN, true
		}
		if strings.Contains(m.SAN, "x") {
			captures = append(captures, m)
		}
	}
	pick := moves
	if len(captures) > 0 && r.Float64() < capture {
		pick = captures
	}
	m := pick[r.IntN(len(pick))]
	return m.UCI(), m.SAN, true
}

// gomokuMove picks an empty point next to the stones.
func gomokuMove(g *gomoku.Game, r *rand.Rand) (string, bool) {
	if g.Plies() == 0 {
		return gomoku.Point{Col: 5 + r.IntN(5), Row: 5 + r.IntN(5)}.String(), true
	}
	me := uint8(1 + g.Plies()%2)
	op := 3 - me
	best, bestScore := gomoku.Point{}, -1
	for col := range gomoku.Size {
		for row := range gomoku.Size {
			p := gomoku.Point{Col: col, Row: row}
			if g.At(p) != 0 || !nearStone(g, p) {
				continue
			}
			mine, theirs := lineThrough(g, p, me), lineThrough(g, p, op)
			var score int
			switch {
			case mine >= 5:
				score = 1000
			case theirs >= 5:
				score = 900
			case mine == 4:
				score = 500 + r.IntN(10)
			case theirs == 4:
				score = 400 + r.IntN(10)
			default:
				score = 10*mine + 10*theirs + r.IntN(25)
			}
			if score > bestScore {
				best, bestScore = p, score
			}
		}
	}
	if bestScore < 0 {
		return "", false
	}
	return best.String(), true
}

func nearStone(g *gomoku.Game, p gomoku.Point) bool {
	for dc := -2; dc <= 2; dc++ {
		for dr := -2; dr <= 2; dr++ {
			q := gomoku.Point{Col: p.Col + dc, Row: p.Row + dr}
			if onBoard(q) && g.At(q) != 0 {
				return true
			}
		}
	}
	return false
}

func onBoard(p gomoku.Point) bool {
	return p.Col >= 0 && p.Col < gomoku.Size && p.Row >= 0 && p.Row < gomoku.Size
}

// lineThrough is the longest line of stone that a stone at p would make.
func lineThrough(g *gomoku.Game, p gomoku.Point, stone uint8) int {
	longest := 0
	for _, d := range [][2]int{{1, 0}, {0, 1}, {1, 1}, {1, -1}} {
		n := 1
		for _, sign := range []int{1, -1} {
			q := gomoku.Point{Col: p.Col + sign*d[0], Row: p.Row + sign*d[1]}
			for onBoard(q) && g.At(q) == stone {
				n++
				q = gomoku.Point{Col: q.Col + sign*d[0], Row: q.Row + sign*d[1]}
			}
		}
		longest = max(longest, n)
	}
	return longest
}

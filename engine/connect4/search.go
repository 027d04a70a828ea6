package connect4

import (
	"math/bits"
	"time"
)

// Limits bound Best's search. Zero or negative fields are no bound; none
// at all means DefaultNodes, so that a call with no limits is
// deterministic.
type Limits struct {
	Nodes int64
	Depth int
	Time  time.Duration
}

// DefaultNodes is Best's node budget when Limits are all zero.
const DefaultNodes = 400_000

// Scores: a win found in the search is winScore less the plies to it, so
// that a quicker win (and a slower loss) scores better; heuristic scores
// stay far below winBound.
const (
	winScore = 100_000
	winBound = winScore - 100
)

// windows are the 69 four-cell lines of the board as bitboards.
var windows = func() []uint64 {
	var out []uint64
	for col := range Width {
		for row := range Height {
			for _, d := range [4][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}} {
				var w uint64
				ok := true
				for k := range 4 {
					c, r := col+k*d[0], row+k*d[1]
					if c < 0 || c >= Width || r < 0 || r >= Height {
						ok = false
						break
					}
					w |= 1 << (c*stride + r)
				}
				if ok {
					out = append(out, w)
				}
			}
		}
	}
	return out
}()

// windowWeight scores a window one side alone holds by its discs in it.
var windowWeight = [4]int{0, 1, 5, 20}

// evaluate scores p for the side to move: the windows each side alone
// holds, plus the cells where a disc would complete four (a threat),
// counted more when the row suits the side's parity: with discs played
// alternately from an even count, the first player tends to get the odd
// rows (1, 3, 5 counting from 1) of a column and the second the even.
func (p Position) evaluate() int {
	me, opp := p.own, p.own^p.all
	s := 0
	for _, w := range windows {
		a, b := w&me, w&opp
		switch {
		case b == 0 && a != 0:
			s += windowWeight[bits.OnesCount64(a)]
		case a == 0 && b != 0:
			s -= windowWeight[bits.OnesCount64(b)]
		}
	}
	first := p.moves%2 == 0 // the side to move is the first player
	myRows, oppRows := oddRows, evenRows
	if !first {
		myRows, oppRows = evenRows, oddRows
	}
	mt, ot := p.winning(), p.opponentWinning()
	s += 8*bits.OnesCount64(mt&myRows) + 4*bits.OnesCount64(mt&^myRows)
	s -= 8*bits.OnesCount64(ot&oppRows) + 4*bits.OnesCount64(ot&^oppRows)
	return s
}

// oddRows are rows 1, 3 and 5 counting from 1 (bits 0, 2, 4 of a column),
// evenRows rows 2, 4 and 6.
const (
	oddRows  uint64 = bottom * 0b010101
	evenRows uint64 = bottom * 0b101010
)

// ttEntry is one slot of the player's table.
type ttEntry struct {
	key   uint64
	move  uint64 // the best cell found, or 0
	score int32
	depth int8
	flag  int8 // exact, lower or upper
}

const (
	exact int8 = iota + 1
	lower
	upper
)

const playerTableBits = 18

type player struct {
	table     []ttEntry
	nodes     int64
	nodeLimit int64
	deadline  time.Time
	aborted   bool
}

func (s *player) stop() bool {
	if s.aborted {
		return true
	}
	if s.nodeLimit > 0 && s.nodes >= s.nodeLimit {
		s.aborted = true
	} else if !s.deadline.IsZero() && s.nodes&1023 == 0 && time.Now().After(s.deadline) {
		s.aborted = true
	}
	return s.aborted
}

// search is alpha-beta negamax to depth plies from p at ply plies from the
// root, for a mover who cannot win at once.
func (s *player) search(p Position, depth, ply, alpha, beta int) int {
	s.nodes++
	next := p.nonLosing()
	if next == 0 {
		return -(winScore - ply - 1) // the opponent makes four next
	}
	if p.moves >= Cells-2 {
		return 0
	}
	if depth <= 0 {
		return p.evaluate()
	}
	key := p.Key()
	e := &s.table[slot(key, playerTableBits)]
	var ttMove uint64
	if e.key == key && e.flag != 0 {
		ttMove = e.move
		if int(e.depth) >= depth {
			sc := int(e.score)
			switch {
			case e.flag == exact,
				e.flag == lower && sc >= beta,
				e.flag == upper && sc <= alpha:
				return sc
			}
		}
	}
	var buf [Width]uint64
	best, bestMove := -winScore, uint64(0)
	a := alpha
	for _, m := range p.ordered(next, ttMove, &buf) {
		q := p
		q.playBit(m)
		v := -s.search(q, depth-1, ply+1, -beta, -a)
		if s.stop() {
			return 0
		}
		if v > best {
			best, bestMove = v, m
		}
		if v > a {
			a = v
		}
		if a >= beta {
			break
		}
	}
	flag := exact
	switch {
	case best <= alpha:
		flag = upper
	case best >= beta:
		flag = lower
	}
	*e = ttEntry{key: key, move: bestMove, score: int32(best), depth: int8(depth), flag: flag}
	return best
}

// Best returns the engine's column ("d") for the player to move after
// moves. It fails on a bad or full column and on a game already over (an
// *OverError).
func Best(moves []string, lim Limits) (string, error) {
	p, err := FromMoves(moves)
	if err != nil {
		return "", err
	}
	if r := p.Over(); r != "" {
		return "", &OverError{Reason: r, Ply: p.moves}
	}
	return ColumnName(choose(p, lim)), nil
}

// choose picks the column for the mover in p, which is not over.
func choose(p Position, lim Limits) int {
	// A win now, then a forced block, need no search.
	if w := p.winning() & p.possible(); w != 0 {
		return colBit(p.ordered(w, 0, new([Width]uint64))[0])
	}
	next := p.nonLosing()
	if next == 0 {
		// Lost whatever happens: block one threat at least.
		next = p.possible() & p.opponentWinning()
		if next == 0 {
			next = p.possible()
		}
		return colBit(p.ordered(next, 0, new([Width]uint64))[0])
	}
	if next&(next-1) == 0 {
		return colBit(next)
	}
	if p.moves == 0 {
		// The 1988 solution: the first player wins from the centre
		// column only, which a shallow search need not see.
		return 3
	}
	if lim.Nodes <= 0 && lim.Depth <= 0 && lim.Time <= 0 {
		// No bound (negative ones are none): the default, never a search
		// to the end of the game from the start.
		lim = Limits{Nodes: DefaultNodes}
	}
	s := &player{table: make([]ttEntry, 1<<playerTableBits), nodeLimit: lim.Nodes}
	if lim.Time > 0 {
		s.deadline = time.Now().Add(lim.Time)
	}
	maxDepth := Cells - p.moves
	if lim.Depth > 0 {
		maxDepth = min(maxDepth, lim.Depth)
	}
	var buf [Width]uint64
	order := p.ordered(next, 0, &buf)
	best := order[0]
	for depth := 1; depth <= maxDepth; depth++ {
		bestHere, score := uint64(0), -winScore-1
		alpha := -winScore - 1
		for _, m := range order {
			q := p
			q.playBit(m)
			v := -s.search(q, depth-1, 1, -winScore-1, -alpha)
			if s.stop() {
				break
			}
			if v > score {
				score, bestHere = v, m
			}
			alpha = max(alpha, v)
		}
		if s.aborted {
			// A move that beat the previous iteration's choice, searched
			// in full, is at least as good by this deeper look.
			if bestHere != 0 && bestHere != best && score > -winBound {
				best = bestHere
			}
			break
		}
		best = bestHere
		// Search the best move first in the next iteration.
		for i, m := range order {
			if m == best {
				copy(order[1:i+1], order[:i])
				order[0] = best
				break
			}
		}
		if score >= winBound || score <= -winBound {
			break // proven: deeper will not change it
		}
	}
	return colBit(best)
}

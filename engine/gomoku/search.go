package gomoku

import (
	"slices"
	"time"
)

// Limits bound the search. Zero fields take defaults: Depth 6 and a node
// budget of 100000 (about a second at most), so that a call with no limits
// is deterministic.
type Limits struct {
	Nodes int64
	Depth int
	Time  time.Duration
}

const (
	win        = 1_000_000
	winBound   = win - 1000
	maxPly     = 40
	rootWidth  = 14 // points searched at the root
	innerWidth = 9  // and below it
	vcfDepth   = 10 // fours in a row the VCF search tries
	vcfBudget  = 20000
)

// OverError is returned for a game that has already ended; Reason is the
// token of PROTOCOL.md section 1, five_in_a_row or board_full.
type OverError struct {
	Reason string
}

func (e *OverError) Error() string { return "gomoku: the game is over: " + e.Reason }

// Best picks the move for the player to move after moves.
func Best(moves []string, lim Limits) (string, error) {
	p, err := fromMoves(moves)
	if err != nil {
		return "", err
	}
	if p.stones > 0 && p.fiveAnywhere(other(p.side)) {
		return "", &OverError{Reason: "five_in_a_row"}
	}
	if p.stones == Size*Size {
		return "", &OverError{Reason: "board_full"}
	}
	if lim.Depth <= 0 {
		lim.Depth = 6
	}
	if lim.Nodes <= 0 {
		lim.Nodes = 100_000
	}
	s := &searcher{pos: p, nodeLimit: lim.Nodes, timeLimit: lim.Time, start: time.Now()}
	return pointName(s.choose(lim.Depth)), nil
}

type candidate struct {
	point int
	score int // ordering: our shapes plus most of the opponent's
}

// analysis is what every node needs to know before it searches.
type analysis struct {
	ownFive  int // a point completing our five, or -1
	oppFives []int
	openFour int // a point making our open four or double four, or -1
	// cands are the empty points near stones, the best-scored first up
	// to the width asked for, the rest unordered.
	cands []candidate
}

type searcher struct {
	pos       *position
	nodes     int64
	nodeLimit int64
	timeLimit time.Duration
	start     time.Time
	aborted   bool
	vcfNodes  int
	// buf[ply] holds the candidates of the node at ply, so that nodes do
	// not allocate.
	buf [maxPly + 2][Size * Size]candidate
	// fives[ply] holds the opponent's five-points at ply.
	fives [maxPly + 2][Size * Size]int
}

func (s *searcher) stop() bool {
	if s.aborted {
		return true
	}
	if s.nodes >= s.nodeLimit || (s.timeLimit > 0 && s.nodes&255 == 0 && time.Since(s.start) >= s.timeLimit) {
		s.aborted = true
	}
	return s.aborted
}

// shapeScore values a point for colour c from its four line shapes.
func (s *searcher) shapeScore(i int, c int8) (score int, five, openFour bool, four bool) {
	var n [shapeFive + 1]int
	for _, d := range steps {
		n[geo.shape[s.pos.windowKey(i, d, c)]]++
	}
	switch {
	case n[shapeFive] > 0:
		return 1 << 24, true, false, true
	case n[shapeOpenFour] > 0 || n[shapeFour] >= 2:
		return 1 << 20, false, true, true
	case n[shapeFour] > 0 && n[shapeOpenThree] > 0:
		score = 1 << 18
	case n[shapeOpenThree] >= 2:
		score = 1 << 16
	}
	score += n[shapeFour]*6000 + n[shapeOpenThree]*4000 + n[shapeThree]*600 + n[shapeTwo]*150
	return score, false, false, n[shapeFour] > 0
}

// analyze reads every candidate point at the node at ply and puts the
// width best first (ties in board order, so the result is deterministic).
func (s *searcher) analyze(ply, width int) analysis {
	p := s.pos
	us, them := p.side, other(p.side)
	a := analysis{ownFive: -1, openFour: -1, cands: s.buf[ply][:0], oppFives: s.fives[ply][:0]}
	for _, i := range geo.points {
		if p.cell[i] != empty || p.near[i] == 0 {
			continue
		}
		own, five, open, _ := s.shapeScore(i, us)
		opp, oppFive, _, _ := s.shapeScore(i, them)
		if five && a.ownFive < 0 {
			a.ownFive = i
		}
		if oppFive {
			a.oppFives = append(a.oppFives, i)
		}
		if open && a.openFour < 0 {
			a.openFour = i
		}
		a.cands = append(a.cands, candidate{point: i, score: own + opp*7/8})
	}
	c := a.cands
	for k := 0; k < min(width, len(c)); k++ {
		bi := k
		for j := k + 1; j < len(c); j++ {
			if c[j].score > c[bi].score || (c[j].score == c[bi].score && c[j].point < c[bi].point) {
				bi = j
			}
		}
		c[k], c[bi] = c[bi], c[k]
	}
	return a
}

// evaluate is the window count from the side to move's view.
func (s *searcher) evaluate() int {
	if s.pos.side == black {
		return s.pos.score
	}
	return -s.pos.score
}

func (s *searcher) negamax(depth, ply, alpha, beta int) int {
	s.nodes++
	if s.stop() {
		return 0
	}
	if ply >= maxPly {
		return s.evaluate()
	}
	a := s.analyze(ply, innerWidth)
	switch {
	case a.ownFive >= 0:
		return win - ply
	case len(a.oppFives) >= 2:
		return -(win - ply - 1)
	case len(a.oppFives) == 0 && a.openFour >= 0:
		return win - ply - 2
	case len(a.cands) == 0:
		return 0 // the board is full
	}
	var moves [innerWidth]int
	n := 0
	if len(a.oppFives) == 1 {
		moves[0], n = a.oppFives[0], 1 // forced: searched without spending depth
	} else {
		if depth <= 0 {
			return s.evaluate()
		}
		depth--
		for _, c := range a.cands[:min(len(a.cands), innerWidth)] {
			moves[n] = c.point
			n++
		}
	}
	best := -win
	for _, m := range moves[:n] {
		s.pos.play(m)
		score := -s.negamax(depth, ply+1, -beta, -alpha)
		s.pos.undo(m)
		if s.aborted {
			return 0
		}
		if score > best {
			best = score
			alpha = max(alpha, score)
			if alpha >= beta {
				break
			}
		}
	}
	return best
}

// choose is the root: the sure rules first, then our VCF, then
// iterative deepening over the best-looking points, and last a check that
// the chosen point does not leave the opponent a VCF.
func (s *searcher) choose(maxDepth int) int {
	p := s.pos
	if p.stones == 0 {
		return at(Size/2, Size/2)
	}
	a := s.analyze(0, rootWidth)
	switch {
	case a.ownFive >= 0:
		return a.ownFive
	case len(a.oppFives) > 0:
		return a.oppFives[0] // with two or more the game is lost anyway
	case a.openFour >= 0:
		return a.openFour
	}
	if m, ok := s.vcf(p.side, nil, vcfDepth); ok {
		return m
	}

	width := min(len(a.cands), rootWidth)
	root := make([]candidate, width)
	copy(root, a.cands[:width])
	best := root[0].point
	for depth := 1; depth <= maxDepth; depth++ {
		alpha, iterBest := -win, -1
		scores := make([]int, len(root))
		for k, c := range root {
			p.play(c.point)
			score := -s.negamax(depth-1, 1, -win, -alpha)
			p.undo(c.point)
			if s.aborted {
				break
			}
			scores[k] = score
			if score > alpha {
				alpha, iterBest = score, c.point
			}
		}
		if s.aborted {
			break
		}
		if iterBest >= 0 {
			best = iterBest
		}
		// Search the best first next time; ties keep the shape order.
		order := make([]int, len(root))
		for k := range order {
			order[k] = k
		}
		slices.SortStableFunc(order, func(x, y int) int { return scores[y] - scores[x] })
		next := make([]candidate, len(root))
		for k, o := range order {
			next[k] = root[o]
		}
		root = next
		if alpha >= winBound || alpha <= -winBound {
			break
		}
	}
	return s.safest(best, root)
}

// safest keeps best unless it leaves the opponent a VCF, in which case it
// takes the first root point, in search order, that does not.
func (s *searcher) safest(best int, root []candidate) int {
	if !s.givesVCF(best) {
		return best
	}
	for _, c := range root {
		if c.point != best && !s.givesVCF(c.point) {
			return c.point
		}
	}
	return best
}

func (s *searcher) givesVCF(m int) bool {
	p := s.pos
	us := p.side
	p.play(m)
	defer p.undo(m)
	s.vcfNodes = 0
	threats := p.fivePointsThrough(m, us, nil)
	_, ok := s.vcf(p.side, threats, vcfDepth)
	return ok
}

// vcf searches for a win by fours alone for attacker, who is to move.
// pending are the defender's five-points the attacker must block first.
// It returns the first move of a win it finds.
func (s *searcher) vcf(attacker int8, pending []int, depth int) (int, bool) {
	p := s.pos
	s.vcfNodes++
	if depth == 0 || s.vcfNodes > vcfBudget ||
		(s.timeLimit > 0 && s.vcfNodes&255 == 0 && time.Since(s.start) >= s.timeLimit) {
		return -1, false
	}
	defender := other(attacker)
	var fours []int
	for _, i := range geo.points {
		if p.cell[i] != empty || p.near[i] == 0 {
			continue
		}
		_, five, open, four := s.shapeScore(i, attacker)
		if five {
			return i, true // before any block: our five ends the game first
		}
		switch {
		case len(pending) >= 2:
		case len(pending) == 1 && i != pending[0]:
		case open && len(pending) == 0:
			return i, true
		case four:
			fours = append(fours, i)
		}
	}
	var buf [8]int
	for _, m := range fours {
		p.play(m)
		blocks := p.fivePointsThrough(m, attacker, buf[:0])
		won := false
		switch {
		case len(blocks) >= 2:
			won = true // a double four with the opponent's fours blocked
		case len(blocks) == 1:
			b := blocks[0]
			p.play(b)
			counter := p.fivePointsThrough(b, defender, nil)
			_, won = s.vcf(attacker, counter, depth-1)
			p.undo(b)
		}
		p.undo(m)
		if won {
			return m, true
		}
	}
	return -1, false
}

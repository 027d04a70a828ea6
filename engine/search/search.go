package search

import (
	"errors"
	"sync/atomic"
	"time"

	"vesper/engine/board"
)

const (
	maxPly    = 128
	maxDepth  = 64
	mate      = 30000
	mateBound = mate - 2*maxPly
	infinity  = 32000
)

// ErrNoMoves is returned when the side to move has no legal move.
var ErrNoMoves = errors.New("search: no legal move")

// Limits bound a search; any zero field is no bound, and a search with no
// bound at all runs until Stop is set. Depth 1 always completes, so a
// search returns a move however small the limits.
type Limits struct {
	Nodes int64
	Depth int
	Time  time.Duration
	// Stop, when set by another goroutine, ends the search at its next
	// check (every 1024 nodes).
	Stop *atomic.Bool
}

// Info describes a completed iteration.
type Info struct {
	Depth    int
	SelDepth int
	// Score is in centipawns from the side to move's view; when Mate is
	// not 0 it is a mate score and Mate is the distance in moves, negative
	// when the side to move is being mated.
	Score   int
	Mate    int
	Nodes   int64
	Elapsed time.Duration
	PV      []board.Move
}

// Result is the chosen move with the last completed iteration's Info.
type Result struct {
	Move board.Move
	Info
}

type frame struct {
	pos       board.Position
	isNull    bool // reached by a null move
	nullFloor int  // lowest key index a repetition scan may look at
}

// Searcher runs iterative-deepening alpha-beta. It is single-threaded and
// keeps its transposition table between searches (Clear empties it); a
// fresh Searcher with a node limit always returns the same result for the
// same input.
type Searcher struct {
	tt      table
	stack   [maxPly + 1]frame
	keys    []uint64
	rootIdx int
	history [2][64][64]int32
	killers [maxPly + 1][2]board.Move
	pv      [maxPly + 1][maxPly + 1]board.Move
	pvLen   [maxPly + 1]int

	nodes, nodeLimit int64
	timeLimit        time.Duration
	start            time.Time
	stop             *atomic.Bool
	canAbort         bool
	aborted          bool
	selDepth         int
	rootBest         board.Move
}

// NewSearcher makes a searcher with a transposition table of about hashMB megabytes.
func NewSearcher(hashMB int) *Searcher {
	return &Searcher{tt: newTable(hashMB)}
}

// Clear forgets everything learnt in earlier searches.
func (s *Searcher) Clear() {
	s.tt.clear()
	s.history = [2][64][64]int32{}
}

// Search finds the best move in g's current position. info, when not nil,
// is called after each completed iteration.
func (s *Searcher) Search(g *Game, lim Limits, info func(Info)) (Result, error) {
	root := g.Pos
	legal := root.LegalMoves()
	if len(legal) == 0 {
		return Result{}, ErrNoMoves
	}
	s.keys = append(s.keys[:0], g.history...)
	s.rootIdx = len(s.keys) - 1
	s.stack[0] = frame{pos: root}
	s.nodes, s.nodeLimit, s.timeLimit = 0, lim.Nodes, lim.Time
	s.stop, s.canAbort, s.aborted, s.selDepth = lim.Stop, false, false, 0
	s.start = time.Now()
	s.killers = [maxPly + 1][2]board.Move{}
	for c := range s.history {
		for f := range s.history[c] {
			for t := range s.history[c][f] {
				s.history[c][f][t] /= 8
			}
		}
	}

	depthLimit := maxDepth
	if lim.Depth > 0 {
		depthLimit = min(lim.Depth, maxDepth)
	}
	if len(legal) == 1 {
		depthLimit = 1
	}
	res := Result{Move: legal[0]}
	for d := 1; d <= depthLimit; d++ {
		s.rootBest = board.NullMove
		score := s.negamax(0, d, -infinity, infinity, true)
		if s.aborted {
			if s.rootBest != board.NullMove && s.rootBest != res.Move {
				res.Move = s.rootBest
				res.PV = []board.Move{s.rootBest}
			}
			break
		}
		if s.pvLen[0] > 0 {
			res.Move = s.pv[0][0]
		}
		res.Info = s.info(d, score)
		if info != nil {
			info(res.Info)
		}
		s.canAbort = true
		if s.timeLimit > 0 && time.Since(s.start) > s.timeLimit/2 {
			break // the next iteration would most likely not finish
		}
		if res.Mate != 0 && d >= 2*abs(res.Mate)+2 {
			break // no deeper search finds a shorter mate
		}
	}
	res.Nodes, res.Elapsed = s.nodes, time.Since(s.start)
	return res, nil
}

func (s *Searcher) info(depth, score int) Info {
	in := Info{Depth: depth, SelDepth: s.selDepth, Score: score, Nodes: s.nodes, Elapsed: time.Since(s.start)}
	in.PV = append([]board.Move(nil), s.pv[0][:s.pvLen[0]]...)
	switch {
	case score >= mateBound:
		in.Mate = (mate - score + 1) / 2
	case score <= -mateBound:
		in.Mate = -(mate + score) / 2
	}
	return in
}

func (s *Searcher) shouldStop() bool {
	if s.aborted {
		return true
	}
	if !s.canAbort {
		return false
	}
	if s.nodeLimit > 0 && s.nodes >= s.nodeLimit {
		s.aborted = true
	} else if s.nodes&1023 == 0 {
		if (s.stop != nil && s.stop.Load()) || (s.timeLimit > 0 && time.Since(s.start) >= s.timeLimit) {
			s.aborted = true
		}
	}
	return s.aborted
}

// repeated reports a draw by repetition at ply: the position occurred twice
// before in the game (a threefold, which ends the game at once under
// PROTOCOL.md section 4), or once before inside the search tree, where the
// side that repeated could repeat again.
func (s *Searcher) repeated(ply int) bool {
	idx := s.rootIdx + ply
	f := &s.stack[ply]
	k := s.keys[idx]
	floor := max(idx-f.pos.HalfMove(), f.nullFloor)
	count := 0
	for i := idx - 2; i >= floor; i -= 2 {
		if s.keys[i] == k {
			if i > s.rootIdx {
				return true
			}
			count++
			if count >= 2 {
				return true
			}
		}
	}
	return false
}

// push sets up ply+1 after m (NullMove for a null move).
func (s *Searcher) push(ply int, m board.Move) *board.Position {
	f, child := &s.stack[ply], &s.stack[ply+1]
	child.pos = f.pos
	child.nullFloor = f.nullFloor
	child.isNull = m == board.NullMove
	if child.isNull {
		child.pos.ApplyNull()
		child.nullFloor = s.rootIdx + ply + 1
	} else {
		child.pos.Apply(m)
	}
	s.keys = append(s.keys[:s.rootIdx+ply+1], child.pos.Key())
	return &child.pos
}

func (s *Searcher) updatePV(ply int, m board.Move) {
	s.pv[ply][0] = m
	n := copy(s.pv[ply][1:], s.pv[ply+1][:s.pvLen[ply+1]])
	s.pvLen[ply] = n + 1
}

func (s *Searcher) negamax(ply, depth, alpha, beta int, pvNode bool) int {
	s.pvLen[ply] = 0
	if s.shouldStop() {
		return 0
	}
	s.nodes++
	f := &s.stack[ply]
	pos := &f.pos
	inCheck := pos.InCheck()
	if ply > 0 {
		score, done := s.interiorCutoff(ply, pos, inCheck, &alpha, &beta)
		if done {
			return score
		}
	}
	if inCheck && ply < maxPly/2 {
		depth++
	}
	if depth <= 0 {
		return s.qsearch(ply, alpha, beta)
	}

	key := pos.Key()
	ttMove, score, hit := s.probeTT(key, ply, depth, alpha, beta, pvNode)
	if hit {
		return score
	}
	if !pvNode && !inCheck && ply > 0 && !f.isNull {
		if score, cut := s.tryNullMove(ply, depth, beta); cut {
			return score
		}
	}
	best, bestMove, legal := s.searchMoves(ply, depth, alpha, beta, pvNode, inCheck, ttMove)
	if s.aborted {
		return 0
	}
	if legal == 0 {
		if inCheck {
			return -mate + ply
		}
		return 0
	}
	s.storeResult(key, bestMove, best, alpha, beta, ply, depth)
	return best
}

// interiorCutoff applies what ends or narrows the search below the root:
// the automatic endings of PROTOCOL.md section 4 (checkmate first), the
// mate-distance window, and the ply limit. done reports that score is the
// node's value.
func (s *Searcher) interiorCutoff(ply int, pos *board.Position, inCheck bool, alpha, beta *int) (score int, done bool) {
	if pos.InsufficientMaterial() || s.repeated(ply) {
		return 0, true
	}
	if pos.HalfMove() >= 100 {
		if inCheck && !pos.HasLegalMove() {
			return -mate + ply, true
		}
		return 0, true
	}
	*alpha = max(*alpha, -mate+ply)
	*beta = min(*beta, mate-ply-1)
	if *alpha >= *beta {
		return *alpha, true
	}
	if ply >= maxPly-1 {
		return Evaluate(pos), true
	}
	return 0, false
}

// probeTT looks the position up in the transposition table: the stored
// move to try first, and at non-PV nodes a score the stored bound already
// decides (hit).
func (s *Searcher) probeTT(key uint64, ply, depth, alpha, beta int, pvNode bool) (ttMove board.Move, score int, hit bool) {
	ttMove = board.NullMove
	e, ok := s.tt.probe(key)
	if !ok {
		return ttMove, 0, false
	}
	ttMove = e.move
	if pvNode || int(e.depth) < depth {
		return ttMove, 0, false
	}
	sc := scoreFromTT(int(e.score), ply)
	switch {
	case e.bound == boundExact,
		e.bound == boundLower && sc >= beta,
		e.bound == boundUpper && sc <= alpha:
		return ttMove, sc, true
	}
	return ttMove, 0, false
}

// tryNullMove is null-move pruning, kept out of positions with at most one
// piece besides king and pawns, where zugzwang is common. cut reports that
// the node fails high (or the search was aborted) with score.
func (s *Searcher) tryNullMove(ply, depth, beta int) (score int, cut bool) {
	pos := &s.stack[ply].pos
	if depth < 3 || beta >= mateBound || pieceCount(pos, pos.Side()) < 2 || Evaluate(pos) < beta {
		return 0, false
	}
	r := 2 + depth/6
	s.push(ply, board.NullMove)
	score = -s.negamax(ply+1, depth-1-r, -beta, -beta+1, false)
	if s.aborted {
		return 0, true
	}
	if score >= beta {
		return min(score, mateBound-1), true
	}
	return 0, false
}

// searchMoves searches every legal move in move-ordering order, raising
// alpha and the PV, and stops at a beta cutoff (rewarding a quiet cutoff
// move) or on abort. legal is how many legal moves were searched.
func (s *Searcher) searchMoves(ply, depth, alpha, beta int, pvNode, inCheck bool, ttMove board.Move) (best int, bestMove board.Move, legal int) {
	pos := &s.stack[ply].pos
	var ml board.MoveList
	var scores [len(ml.Moves)]int32
	pos.GenerateMoves(&ml)
	s.scoreMoves(pos, &ml, scores[:], ply, ttMove)
	ci := pos.CheckInfo()
	best, bestMove = -infinity, board.NullMove
	for i := 0; i < ml.N; i++ {
		m := pick(&ml, scores[:], i)
		if !pos.IsLegalWith(&ci, m) {
			continue
		}
		legal++
		score := s.searchMove(ply, depth, alpha, beta, pvNode, inCheck, legal, m)
		if s.aborted {
			return best, bestMove, legal
		}
		if score <= best {
			continue
		}
		best, bestMove = score, m
		if score <= alpha {
			continue
		}
		alpha = score
		s.updatePV(ply, m)
		if ply == 0 {
			s.rootBest = m
		}
		if alpha >= beta {
			if m.IsQuiet() {
				s.rewardQuiet(pos.Side(), ply, depth, m)
			}
			break
		}
	}
	return best, bestMove, legal
}

// searchMove plays m and scores it: the first legal move with the full
// window, later ones with a null window (reduced for late quiet moves) and
// a re-search when they beat alpha.
func (s *Searcher) searchMove(ply, depth, alpha, beta int, pvNode, inCheck bool, legal int, m board.Move) int {
	child := s.push(ply, m)
	newDepth := depth - 1
	if legal == 1 {
		return -s.negamax(ply+1, newDepth, -beta, -alpha, pvNode)
	}
	r := 0
	if depth >= 3 && legal > 3 && m.IsQuiet() && !inCheck &&
		m != s.killers[ply][0] && m != s.killers[ply][1] && !child.InCheck() {
		r = 1
		if depth >= 6 && legal > 10 {
			r = 2
		}
	}
	score := -s.negamax(ply+1, newDepth-r, -alpha-1, -alpha, false)
	if score > alpha && r > 0 {
		score = -s.negamax(ply+1, newDepth, -alpha-1, -alpha, false)
	}
	if score > alpha && score < beta {
		score = -s.negamax(ply+1, newDepth, -beta, -alpha, true)
	}
	return score
}

// storeResult records the node's value in the transposition table with
// the bound the window it was searched in gives it.
func (s *Searcher) storeResult(key uint64, bestMove board.Move, best, origAlpha, beta, ply, depth int) {
	bound := boundUpper
	switch {
	case best >= beta:
		bound = boundLower
	case best > origAlpha:
		bound = boundExact
	}
	s.tt.store(key, bestMove, scoreToTT(best, ply), depth, bound)
}

func (s *Searcher) qsearch(ply, alpha, beta int) int {
	s.pvLen[ply] = 0
	if s.shouldStop() {
		return 0
	}
	s.nodes++
	s.selDepth = max(s.selDepth, ply)
	pos := &s.stack[ply].pos
	if pos.InsufficientMaterial() {
		return 0
	}
	if ply >= maxPly-1 {
		return Evaluate(pos)
	}
	inCheck := pos.InCheck()
	best := -infinity
	stand := 0
	if !inCheck {
		stand = Evaluate(pos)
		if stand >= beta {
			return stand
		}
		alpha = max(alpha, stand)
		best = stand
	}
	best, legal := s.qsearchMoves(ply, alpha, beta, best, stand, inCheck)
	if s.aborted {
		return 0
	}
	if inCheck && legal == 0 {
		return -mate + ply
	}
	return best
}

// qsearchMoves searches the captures and queen promotions (every move when
// in check) that could still lift alpha, from best (the stand-pat score,
// or -infinity in check). legal is how many legal moves were searched.
func (s *Searcher) qsearchMoves(ply, alpha, beta, best, stand int, inCheck bool) (int, int) {
	pos := &s.stack[ply].pos
	var ml board.MoveList
	var scores [len(ml.Moves)]int32
	if inCheck {
		pos.GenerateMoves(&ml)
	} else {
		pos.GenerateCaptures(&ml)
	}
	s.scoreMoves(pos, &ml, scores[:], ply, board.NullMove)
	ci := pos.CheckInfo()
	legal := 0
	for i := 0; i < ml.N; i++ {
		m := pick(&ml, scores[:], i)
		if !inCheck && futileInQsearch(m, stand, alpha) {
			continue
		}
		if !pos.IsLegalWith(&ci, m) {
			continue
		}
		legal++
		s.push(ply, m)
		score := -s.qsearch(ply+1, -beta, -alpha)
		if s.aborted {
			return best, legal
		}
		if score > best {
			best = score
			if score > alpha {
				alpha = score
				s.updatePV(ply, m)
				if alpha >= beta {
					break
				}
			}
		}
	}
	return best, legal
}

// futileInQsearch skips under-promotions and, by delta pruning, captures
// where even winning the piece cannot lift alpha.
func futileInQsearch(m board.Move, stand, alpha int) bool {
	promo := m.Promotion()
	if promo != board.NoPieceType && promo != board.Queen {
		return true
	}
	return promo == board.NoPieceType && stand+egValue[m.Captured()]+200 <= alpha
}

func pieceCount(p *board.Position, c board.Color) int {
	n := 0
	for t := board.Knight; t <= board.Queen; t++ {
		n += p.Pieces(c, t).Count()
	}
	return n
}

package search

import "vesper/engine/board"

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

package search

import "vesper/engine/board"

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

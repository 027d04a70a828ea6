package search

import "vesper/engine/board"

const (
	scoreHash    = 1 << 30
	scoreCapture = 1 << 24
	scoreKiller  = 1 << 23
	historyMax   = 1 << 20
)

// scoreMoves orders: the hash move, then captures and queen promotions by
// most valuable victim and least valuable attacker, then killers, then
// quiet moves by history; under-promotions go last.
func (s *Searcher) scoreMoves(pos *board.Position, ml *board.MoveList, scores []int32, ply int, ttMove board.Move) {
	side := pos.Side()
	for i, m := range ml.Slice() {
		var sc int32
		promo := m.Promotion()
		switch {
		case m == ttMove:
			sc = scoreHash
		case promo != board.NoPieceType && promo != board.Queen:
			sc = -scoreCapture
		case m.IsCapture() || promo == board.Queen:
			sc = scoreCapture - int32(m.Moving())
			if m.IsCapture() {
				sc += int32(mgValue[m.Captured()]) * 16
			}
			if promo == board.Queen {
				sc += int32(mgValue[board.Queen]) * 16
			}
		case m == s.killers[ply][0]:
			sc = scoreKiller
		case m == s.killers[ply][1]:
			sc = scoreKiller - 1
		default:
			sc = s.history[side][m.From()][m.To()]
		}
		scores[i] = sc
	}
}

// pick moves the best-scored remaining move to position i (selection sort
// one step at a time: a cutoff usually comes before the list is sorted).
func pick(ml *board.MoveList, scores []int32, i int) board.Move {
	bi := i
	for j := i + 1; j < ml.N; j++ {
		if scores[j] > scores[bi] {
			bi = j
		}
	}
	ml.Moves[i], ml.Moves[bi] = ml.Moves[bi], ml.Moves[i]
	scores[i], scores[bi] = scores[bi], scores[i]
	return ml.Moves[i]
}

func (s *Searcher) rewardQuiet(side board.Color, ply, depth int, m board.Move) {
	if s.killers[ply][0] != m {
		s.killers[ply][1] = s.killers[ply][0]
		s.killers[ply][0] = m
	}
	h := &s.history[side][m.From()][m.To()]
	*h += int32(depth * depth)
	if *h >= historyMax {
		for f := range s.history[side] {
			for t := range s.history[side][f] {
				s.history[side][f][t] /= 2
			}
		}
	}
}

package search

import "vesper/engine/board"

// Piece values, middlegame and endgame, in centipawns.
var (
	mgValue = [6]int{100, 320, 330, 480, 950, 0}
	egValue = [6]int{120, 310, 330, 540, 1000, 0}
	// phaseWeight sums to 24 for the full set of pieces.
	phaseWeight = [6]int{0, 1, 1, 2, 4, 0}
)

const maxPhase = 24

// pst holds piece-square bonuses from White's side (square index a1 = 0);
// Black reads the vertically mirrored square.
type pst struct {
	mg, eg [6][64]int
}

var tablesPST = newPST()

// newPST builds the tables from a few plain ideas instead of hand-typed
// grids: minor pieces and queens like the centre, pawns like to advance
// (centre pawns in the opening most), rooks like the seventh rank, the
// king hides on the wing in the middlegame and walks to the centre in the
// endgame.
func newPST() *pst {
	t := &pst{}
	abs := func(x int) int {
		if x < 0 {
			return -x
		}
		return x
	}
	for s := 0; s < 64; s++ {
		f, r := s&7, s>>3
		df, dr := abs(2*f-7), abs(2*r-7) // 1, 3, 5 or 7
		ring := (max(df, dr) - 1) / 2    // 0 (centre) .. 3 (edge)

		pawnMg := [8]int{0, 0, 2, 6, 12, 25, 45, 0}[r]
		if (f == 3 || f == 4) && (r == 3 || r == 4) {
			pawnMg += 15
		}
		if (f == 2 || f == 5) && (r == 3 || r == 4) {
			pawnMg += 5
		}
		if (f == 3 || f == 4) && r == 1 {
			pawnMg -= 10
		}
		if f >= 5 && r == 1 {
			pawnMg += 5 // keep the castled king's shelter
		}
		t.mg[board.Pawn][s] = pawnMg
		t.eg[board.Pawn][s] = [8]int{0, 0, 5, 12, 25, 45, 75, 0}[r]

		t.mg[board.Knight][s] = [4]int{20, 8, -8, -35}[ring]
		t.eg[board.Knight][s] = [4]int{12, 6, -6, -25}[ring]
		if r == 0 && (f == 1 || f == 6) {
			t.mg[board.Knight][s] -= 10 // develop
		}

		t.mg[board.Bishop][s] = [4]int{10, 10, 0, -12}[ring]
		t.eg[board.Bishop][s] = [4]int{8, 6, 0, -10}[ring]
		if r == 0 && (f == 2 || f == 5) {
			t.mg[board.Bishop][s] -= 10
		}

		rook := 0
		if r == 6 {
			rook = 15
		}
		if f == 3 || f == 4 {
			rook += 5
		}
		t.mg[board.Rook][s] = rook
		t.eg[board.Rook][s] = rook / 2

		t.mg[board.Queen][s] = [4]int{5, 4, 0, -8}[ring]
		t.eg[board.Queen][s] = [4]int{12, 8, 0, -12}[ring]

		kingMg := -25 * min(r, 3)
		if r == 0 {
			kingMg += [8]int{20, 30, 10, -5, 0, -5, 30, 20}[f]
		}
		t.mg[board.King][s] = kingMg
		t.eg[board.King][s] = [4]int{25, 12, -5, -30}[ring]
	}
	return t
}

// masks used by the pawn terms.
type pawnMasks struct {
	passed   [2][64]board.Bitboard // squares ahead on the same and adjacent files
	adjacent [8]board.Bitboard     // the files beside f
}

var masks = newPawnMasks()

func newPawnMasks() *pawnMasks {
	m := &pawnMasks{}
	for f := 0; f < 8; f++ {
		if f > 0 {
			m.adjacent[f] |= board.FileMask(f - 1)
		}
		if f < 7 {
			m.adjacent[f] |= board.FileMask(f + 1)
		}
	}
	for s := 0; s < 64; s++ {
		f, r := s&7, s>>3
		files := m.adjacent[f] | board.FileMask(f)
		for rr := 0; rr < 8; rr++ {
			rankBits := board.Bitboard(0xff) << (8 * rr)
			if rr > r {
				m.passed[board.White][s] |= files & rankBits
			}
			if rr < r {
				m.passed[board.Black][s] |= files & rankBits
			}
		}
	}
	return m
}

var (
	passedMg = [8]int{0, 5, 8, 15, 30, 50, 80, 0}
	passedEg = [8]int{0, 10, 15, 30, 55, 90, 140, 0}
)

// relRank is the rank of s counted from c's side (0 = c's back rank).
func relRank(c board.Color, s board.Square) int {
	if c == board.White {
		return s.Rank()
	}
	return 7 - s.Rank()
}

func mirror(c board.Color, s board.Square) board.Square {
	if c == board.White {
		return s
	}
	return s ^ 56
}

// Evaluate scores the position in centipawns from the side to move's view.
func Evaluate(p *board.Position) int {
	var mg, eg [2]int
	phase := 0
	all := p.All()
	pawnAtt := [2]board.Bitboard{
		board.PawnAttacks(board.White, p.Pieces(board.White, board.Pawn)),
		board.PawnAttacks(board.Black, p.Pieces(board.Black, board.Pawn)),
	}
	for c := board.White; c <= board.Black; c++ {
		them := c.Other()
		own := p.Occupied(c)
		safe := ^own &^ pawnAtt[them]
		ownPawns, theirPawns := p.Pieces(c, board.Pawn), p.Pieces(them, board.Pawn)
		for t := board.Pawn; t <= board.King; t++ {
			for b := p.Pieces(c, t); b != 0; {
				s := b.PopLSB()
				ms := mirror(c, s)
				mg[c] += mgValue[t] + tablesPST.mg[t][ms]
				eg[c] += egValue[t] + tablesPST.eg[t][ms]
				phase += phaseWeight[t]
				switch t {
				case board.Pawn:
					f := s.File()
					if masks.passed[c][s]&theirPawns == 0 {
						rr := relRank(c, s)
						mg[c] += passedMg[rr]
						eg[c] += passedEg[rr]
					}
					if masks.adjacent[f]&ownPawns == 0 {
						mg[c] -= 12
						eg[c] -= 15
					}
					if masks.passed[c][s]&board.FileMask(f)&ownPawns != 0 {
						mg[c] -= 10
						eg[c] -= 20
					}
				case board.Knight:
					n := (board.KnightAttacks(s) & safe).Count()
					mg[c] += 4 * (n - 4)
					eg[c] += 4 * (n - 4)
				case board.Bishop:
					n := (board.BishopAttacks(s, all) & safe).Count()
					mg[c] += 4 * (n - 6)
					eg[c] += 5 * (n - 6)
				case board.Rook:
					n := (board.RookAttacks(s, all) & safe).Count()
					mg[c] += 2 * (n - 7)
					eg[c] += 4 * (n - 7)
					file := board.FileMask(s.File())
					if file&ownPawns == 0 {
						if file&theirPawns == 0 {
							mg[c] += 20
							eg[c] += 8
						} else {
							mg[c] += 10
							eg[c] += 4
						}
					}
				case board.Queen:
					n := (board.RookAttacks(s, all) | board.BishopAttacks(s, all)) & safe
					mg[c] += n.Count() - 14
					eg[c] += 2 * (n.Count() - 14)
				case board.King:
					mg[c] += 8 * min((board.KingAttacks(s)&ownPawns&^rankOf(s)).Count(), 3)
				}
			}
		}
		if p.Pieces(c, board.Bishop).Count() >= 2 {
			mg[c] += 30
			eg[c] += 50
		}
	}
	phase = min(phase, maxPhase)
	score := ((mg[0]-mg[1])*phase + (eg[0]-eg[1])*(maxPhase-phase)) / maxPhase
	score += endgameAdjust(p, score)
	if p.Side() == board.Black {
		score = -score
	}
	return score + 10 // the side to move has the tempo
}

func rankOf(s board.Square) board.Bitboard { return board.Bitboard(0xff) << (8 * s.Rank()) }

// endgameAdjust (White's view) drives a bare king to the edge and the
// winning king towards it, which a shallow search cannot find by itself
// before the fifty-move rule; and it damps advantages that cannot win
// without pawns (a minor piece up, or less).
func endgameAdjust(p *board.Position, score int) int {
	strong := board.White
	if score < 0 {
		strong = board.Black
	}
	weak := strong.Other()
	if p.Pieces(strong, board.Pawn) != 0 {
		return 0
	}
	material := func(c board.Color) int {
		v := 0
		for t := board.Knight; t <= board.Queen; t++ {
			v += p.Pieces(c, t).Count() * mgValue[t]
		}
		return v
	}
	diff := material(strong) - material(weak)
	sign := 1
	if strong == board.Black {
		sign = -1
	}
	if diff <= mgValue[board.Bishop] {
		return -score * 7 / 8
	}
	if p.Pieces(weak, board.Pawn) != 0 {
		return 0
	}
	wk, sk := p.KingSquare(weak), p.KingSquare(strong)
	centre := func(s board.Square) int {
		f, r := s.File(), s.Rank()
		return max(3-f, f-4) + max(3-r, r-4)
	}
	dist := max(abs(wk.File()-sk.File()), abs(wk.Rank()-sk.Rank()))
	return sign * (20*centre(wk) + 10*(7-dist))
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

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
	for s := 0; s < 64; s++ {
		f, r := s&7, s>>3
		df, dr := abs(2*f-7), abs(2*r-7) // 1, 3, 5 or 7
		ring := (max(df, dr) - 1) / 2    // 0 (centre) .. 3 (edge)

		t.mg[board.Pawn][s] = pawnMgBonus(f, r)
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

		rook := rookBonus(f, r)
		t.mg[board.Rook][s] = rook
		t.eg[board.Rook][s] = rook / 2

		t.mg[board.Queen][s] = [4]int{5, 4, 0, -8}[ring]
		t.eg[board.Queen][s] = [4]int{12, 8, 0, -12}[ring]

		t.mg[board.King][s] = kingMgBonus(f, r)
		t.eg[board.King][s] = [4]int{25, 12, -5, -30}[ring]
	}
	return t
}

// pawnMgBonus is the middlegame pawn bonus on file f, rank r: advancing,
// holding the centre, and not leaving the castled king's shelter.
func pawnMgBonus(f, r int) int {
	b := [8]int{0, 0, 2, 6, 12, 25, 45, 0}[r]
	if (f == 3 || f == 4) && (r == 3 || r == 4) {
		b += 15
	}
	if (f == 2 || f == 5) && (r == 3 || r == 4) {
		b += 5
	}
	if (f == 3 || f == 4) && r == 1 {
		b -= 10
	}
	if f >= 5 && r == 1 {
		b += 5 // keep the castled king's shelter
	}
	return b
}

// rookBonus favours the seventh rank and the centre files.
func rookBonus(f, r int) int {
	b := 0
	if r == 6 {
		b = 15
	}
	if f == 3 || f == 4 {
		b += 5
	}
	return b
}

// kingMgBonus keeps the middlegame king home, castled on a wing.
func kingMgBonus(f, r int) int {
	b := -25 * min(r, 3)
	if r == 0 {
		b += [8]int{20, 30, 10, -5, 0, -5, 30, 20}[f]
	}
	return b
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
		e := evalSide{
			c:          c,
			all:        all,
			safe:       ^p.Occupied(c) &^ pawnAtt[them],
			ownPawns:   p.Pieces(c, board.Pawn),
			theirPawns: p.Pieces(them, board.Pawn),
		}
		for t := board.Pawn; t <= board.King; t++ {
			for b := p.Pieces(c, t); b != 0; {
				s := b.PopLSB()
				ms := mirror(c, s)
				dmg, deg := e.pieceTerms(t, s)
				mg[c] += mgValue[t] + tablesPST.mg[t][ms] + dmg
				eg[c] += egValue[t] + tablesPST.eg[t][ms] + deg
				phase += phaseWeight[t]
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

// evalSide is what the per-piece terms of one side's pieces look at.
type evalSide struct {
	c                    board.Color
	all                  board.Bitboard // every occupied square
	safe                 board.Bitboard // neither own pieces nor attacked by enemy pawns
	ownPawns, theirPawns board.Bitboard
}

// pieceTerms is the middlegame and endgame bonus of a piece of type t on s
// beyond its value and square: pawn structure, mobility, open files, and
// the king's pawn shield.
func (e *evalSide) pieceTerms(t board.PieceType, s board.Square) (mg, eg int) {
	switch t {
	case board.Pawn:
		return e.pawnTerms(s)
	case board.Knight:
		n := (board.KnightAttacks(s) & e.safe).Count()
		return 4 * (n - 4), 4 * (n - 4)
	case board.Bishop:
		n := (board.BishopAttacks(s, e.all) & e.safe).Count()
		return 4 * (n - 6), 5 * (n - 6)
	case board.Rook:
		return e.rookTerms(s)
	case board.Queen:
		n := (board.RookAttacks(s, e.all) | board.BishopAttacks(s, e.all)) & e.safe
		return n.Count() - 14, 2 * (n.Count() - 14)
	case board.King:
		return 8 * min((board.KingAttacks(s)&e.ownPawns&^rankOf(s)).Count(), 3), 0
	}
	return 0, 0
}

// pawnTerms rewards a passed pawn by its rank and penalises isolated and
// doubled pawns.
func (e *evalSide) pawnTerms(s board.Square) (mg, eg int) {
	f := s.File()
	if masks.passed[e.c][s]&e.theirPawns == 0 {
		rr := relRank(e.c, s)
		mg += passedMg[rr]
		eg += passedEg[rr]
	}
	if masks.adjacent[f]&e.ownPawns == 0 {
		mg -= 12
		eg -= 15
	}
	if masks.passed[e.c][s]&board.FileMask(f)&e.ownPawns != 0 {
		mg -= 10
		eg -= 20
	}
	return mg, eg
}

// rookTerms is a rook's mobility and its bonus on a half-open or open file.
func (e *evalSide) rookTerms(s board.Square) (mg, eg int) {
	n := (board.RookAttacks(s, e.all) & e.safe).Count()
	mg, eg = 2*(n-7), 4*(n-7)
	file := board.FileMask(s.File())
	if file&e.ownPawns == 0 {
		if file&e.theirPawns == 0 {
			mg += 20
			eg += 8
		} else {
			mg += 10
			eg += 4
		}
	}
	return mg, eg
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

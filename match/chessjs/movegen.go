package chessjs

// Legal move generation, on a 0x88 board laid out as chess.js lays out its
// own (a8 = 0, h1 = 0x77), so that walking the squares and the offset
// tables in chess.js's order yields the moves in chess.js's _moves() order
// with no sorting. chess.js tests every pseudo-legal move by making it and
// asking whether its own king is attacked; the same answer comes cheaper
// here: a move of a piece that is not pinned, when the king is not in
// check, cannot expose the king, and a king move is safe exactly when its
// destination is not attacked once the king has left its square. Moves of
// pinned pieces, every move out of check, en-passant captures (which empty
// two squares of one rank) and castling are made and tested the way
// chess.js tests them.

// chess.js's direction tables, as 0x88 offsets (one rank up is -16).
var (
	knightOffsets = [8]int{-18, -33, -31, -14, 18, 33, 31, 14}
	bishopOffsets = [4]int{-17, -15, 17, 15}
	rookOffsets   = [4]int{-16, 1, 16, -1}
	royalOffsets  = [8]int{-17, -16, -15, 1, 17, 16, 15, -1} // diagonals at even indexes
)

// x88 maps a square (a1 = 0) to its 0x88 index.
func x88(sq int8) int { return (7-int(sq>>3))<<4 | int(sq&7) }

// from88 maps a 0x88 index back to a square (a1 = 0).
func from88(x int) int8 { return int8((7-x>>4)<<3 | x&7) }

// onBoard is chess.js's !(x & 0x88). It holds for no negative x either,
// since every offset used is above -128.
func onBoard(x int) bool { return x&0x88 == 0 }

// slides reports whether the FEN letter c moves along diagonals (diagonal)
// or ranks and files (!diagonal) without limit.
func slides(c byte, diagonal bool) bool {
	switch lower(c) {
	case 'q':
		return true
	case 'b':
		return diagonal
	case 'r':
		return !diagonal
	}
	return false
}

// attacked reports whether a piece of colour by attacks the 0x88 square sq
// of b, as chess.js's _attacked(by, sq) does.
func attacked(b *[128]byte, sq int, by Color) bool {
	// A white pawn attacks up the board (-15, -17), so it stands below sq.
	pawn, knight, bishop, rook, queen, king, pawnAt := byte('P'), byte('N'), byte('B'), byte('R'), byte('Q'), byte('K'), sq+15
	if by == Black {
		pawn, knight, bishop, rook, queen, king, pawnAt = 'p', 'n', 'b', 'r', 'q', 'k', sq-17
	}
	if s := pawnAt; onBoard(s) && b[s&0x7f] == pawn {
		return true
	}
	if s := pawnAt + 2; onBoard(s) && b[s&0x7f] == pawn {
		return true
	}
	for _, d := range knightOffsets {
		if s := sq + d; onBoard(s) && b[s&0x7f] == knight {
			return true
		}
	}
	for i, d := range royalOffsets {
		s := sq + d
		if !onBoard(s) {
			continue
		}
		c := b[s&0x7f]
		if c == king {
			return true
		}
		slider := rook
		if i%2 == 0 {
			slider = bishop
		}
		for c == 0 {
			if s += d; !onBoard(s) {
				break
			}
			c = b[s&0x7f]
		}
		if c == slider || c == queen {
			return true
		}
	}
	return false
}

// generator holds what generating one position's moves needs: a scratch
// copy of the board to make moves on, and the pinned pieces.
type generator struct {
	b         [128]byte
	us, them  Color
	king      int  // 0x88 square of the side to move's king
	check     bool // the side to move is in check
	ep        int  // 0x88 en-passant square, -1 when unset
	pinned    [2]uint64
	first     bool  // stop at the first legal move
	castle    uint8 // castling rights of the side to move, as castleWK/castleWQ
	kingSide  uint8
	queenSide uint8
}

// generate appends the legal moves of p to dst in chess.js's order, or only
// the first of them (with all its promotions) when first is set.
func (p *position) generate(dst []legalMove, first bool) []legalMove {
	g := generator{
		b:     p.b88,
		us:    p.turn,
		them:  p.turn.Other(),
		king:  int(p.kings[p.turn]),
		check: p.check,
		ep:    -1,
		first: first,
	}
	if p.ep >= 0 {
		g.ep = x88(p.ep)
	}
	g.kingSide, g.queenSide = castleWK, castleWQ
	if g.us == Black {
		g.kingSide, g.queenSide = castleBK, castleBQ
	}
	g.castle = p.castle & (g.kingSide | g.queenSide)
	g.findPins()
	for from := 0; from < 128; from++ {
		if !onBoard(from) {
			from += 7
			continue
		}
		c := g.b[from]
		if c == 0 || colorOf(c) != g.us {
			continue
		}
		if t := lower(c); t == 'p' {
			dst = g.pawnMoves(dst, from)
		} else {
			dst = g.pieceMoves(dst, from, t)
		}
		if g.done(dst) {
			return dst
		}
	}
	return g.castling(dst)
}

// The moves are passed along and returned rather than kept in the
// generator, so that a caller's buffer can stay on its stack.

func (g *generator) done(ms []legalMove) bool { return g.first && len(ms) > 0 }

// findPins marks the pieces of the side to move that stand alone between
// their king and an enemy piece sliding along that line.
func (g *generator) findPins() {
	for i, d := range royalOffsets {
		own := -1
		for s := g.king + d; onBoard(s); s += d {
			c := g.b[s]
			if c == 0 {
				continue
			}
			if colorOf(c) == g.us {
				if own >= 0 {
					break
				}
				own = s
				continue
			}
			if own >= 0 && slides(c, i%2 == 0) {
				g.pinned[own>>6] |= 1 << (own & 63)
			}
			break
		}
	}
}

func (g *generator) isPinned(sq int) bool { return g.pinned[sq>>6]&(1<<(sq&63)) != 0 }

// pawnMoves is chess.js's pawn branch: the push, the double push from the
// second rank, then the captures in PAWN_OFFSETS order, en passant among
// them.
func (g *generator) pawnMoves(ms []legalMove, from int) []legalMove {
	push, second, captures := -16, 6, [2]int{-17, -15}
	if g.us == Black {
		push, second, captures = 16, 1, [2]int{17, 15}
	}
	if to := from + push; g.b[to] == 0 {
		ms = g.add(ms, from, to, 'p', 0)
		if to += push; from>>4 == second && g.b[to] == 0 {
			ms = g.add(ms, from, to, 'p', flagBigPawn)
		}
	}
	for _, off := range captures {
		to := from + off
		switch {
		case !onBoard(to):
		case g.b[to] != 0 && colorOf(g.b[to]) == g.them:
			ms = g.add(ms, from, to, 'p', flagCapture)
		case to == g.ep:
			ms = g.add(ms, from, to, 'p', flagEnPassant)
		}
	}
	return ms
}

// pieceMoves is chess.js's piece branch: by direction in PIECE_OFFSETS
// order, then by distance, a knight or king one step only.
func (g *generator) pieceMoves(ms []legalMove, from int, t byte) []legalMove {
	var offs []int
	switch t {
	case 'n':
		offs = knightOffsets[:]
	case 'b':
		offs = bishopOffsets[:]
	case 'r':
		offs = rookOffsets[:]
	default:
		offs = royalOffsets[:]
	}
	step := t == 'n' || t == 'k'
	for _, d := range offs {
		for to := from + d; onBoard(to); to += d {
			if c := g.b[to]; c != 0 {
				if colorOf(c) == g.them {
					ms = g.add(ms, from, to, t, flagCapture)
				}
				break
			}
			ms = g.add(ms, from, to, t, 0)
			if step {
				break
			}
		}
		if g.done(ms) {
			return ms
		}
	}
	return ms
}

// castling is chess.js's: king side first, each with its right, empty
// squares between king and rook, and the king's square and the two it
// crosses or lands on not attacked.
func (g *generator) castling(ms []legalMove) []legalMove {
	k := g.king
	if g.castle&g.kingSide != 0 && !g.done(ms) &&
		g.b[k+1] == 0 && g.b[k+2] == 0 &&
		!g.check && !attacked(&g.b, k+1, g.them) && !attacked(&g.b, k+2, g.them) {
		ms = g.add(ms, k, k+2, 'k', flagCastleK)
	}
	if g.castle&g.queenSide != 0 && !g.done(ms) &&
		g.b[k-1] == 0 && g.b[k-2] == 0 && g.b[k-3] == 0 &&
		!g.check && !attacked(&g.b, k-1, g.them) && !attacked(&g.b, k-2, g.them) {
		ms = g.add(ms, k, k-2, 'k', flagCastleQ)
	}
	return ms
}

// add appends the move if it is legal, as chess.js's addMove does: a pawn
// reaching the last rank gives four moves, promotions n, b, r, q.
func (g *generator) add(ms []legalMove, from, to int, piece byte, flags uint8) []legalMove {
	if !g.legal(from, to, flags) {
		return ms
	}
	m := legalMove{from: from88(from), to: from88(to), piece: piece, flags: flags}
	if piece == 'p' && (to>>4 == 0 || to>>4 == 7) {
		for _, promo := range [4]byte{'n', 'b', 'r', 'q'} {
			m.promo = promo
			ms = append(ms, m)
		}
		return ms
	}
	return append(ms, m)
}

// legal reports whether the pseudo-legal move leaves the mover's king
// unattacked.
func (g *generator) legal(from, to int, flags uint8) bool {
	const special = flagEnPassant | flagCastleK | flagCastleQ
	if from == g.king && flags&special == 0 {
		king := g.b[from]
		g.b[from] = 0 // a slider's ray through the king's old square reaches to
		ok := !attacked(&g.b, to, g.them)
		g.b[from] = king
		return ok
	}
	if !g.check && flags&special == 0 && !g.isPinned(from) {
		return true
	}
	return g.tryMove(from, to, flags)
}

// tryMove makes the move on the scratch board, asks whether the mover's
// king is attacked, and takes the move back: chess.js's own test.
func (g *generator) tryMove(from, to int, flags uint8) bool {
	b := &g.b
	moving, captured := b[from], b[to]
	b[to], b[from] = moving, 0
	victim, rookFrom, rookTo := -1, -1, -1
	switch {
	case flags&flagEnPassant != 0:
		victim = to + 16 // the captured pawn is behind to, seen from the mover
		if g.us == Black {
			victim = to - 16
		}
	case flags&flagCastleK != 0:
		rookFrom, rookTo = to+1, to-1
	case flags&flagCastleQ != 0:
		rookFrom, rookTo = to-2, to+1
	}
	var victimPiece, rook byte
	if victim >= 0 {
		victimPiece, b[victim] = b[victim], 0
	}
	if rookFrom >= 0 {
		rook = b[rookFrom]
		b[rookTo], b[rookFrom] = rook, 0
	}
	king := g.king
	if from == g.king {
		king = to
	}
	ok := !attacked(b, king, g.them)
	if rookFrom >= 0 {
		b[rookFrom], b[rookTo] = rook, 0
	}
	if victim >= 0 {
		b[victim] = victimPiece
	}
	b[from], b[to] = moving, captured
	return ok
}

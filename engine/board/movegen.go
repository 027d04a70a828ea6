package board

// GenerateMoves appends every pseudo-legal move: legal except that it may
// leave the mover's king attacked. Castling is generated only when it is
// fully legal. Filter with IsLegal.
func (p *Position) GenerateMoves(ml *MoveList) {
	p.genPawns(ml, true)
	p.genPieces(ml, ^p.occ[p.side])
	p.genCastling(ml)
}

// GenerateCaptures appends the pseudo-legal captures and promotions (all
// four promotion pieces), the moves quiescence search looks at.
func (p *Position) GenerateCaptures(ml *MoveList) {
	p.genPawns(ml, false)
	p.genPieces(ml, p.occ[p.side.Other()])
}

func (p *Position) addTo(ml *MoveList, from Square, t PieceType, targets Bitboard) {
	for targets != 0 {
		to := popLSB(&targets)
		m := newMove(from, to, t)
		if v := p.board[to]; v != Empty {
			m = m.withCapture(v.Type())
		}
		ml.add(m)
	}
}

func (p *Position) genPieces(ml *MoveList, targets Bitboard) {
	us := p.side
	pc := &p.pieces[us]
	for b := pc[Knight]; b != 0; {
		s := popLSB(&b)
		p.addTo(ml, s, Knight, tables.knight[s]&targets)
	}
	for b := pc[Bishop]; b != 0; {
		s := popLSB(&b)
		p.addTo(ml, s, Bishop, bishopAttacks(s, p.all)&targets)
	}
	for b := pc[Rook]; b != 0; {
		s := popLSB(&b)
		p.addTo(ml, s, Rook, rookAttacks(s, p.all)&targets)
	}
	for b := pc[Queen]; b != 0; {
		s := popLSB(&b)
		p.addTo(ml, s, Queen, (rookAttacks(s, p.all)|bishopAttacks(s, p.all))&targets)
	}
	k := pc[King].lsb()
	p.addTo(ml, k, King, tables.king[k]&targets)
}

func addPromotions(ml *MoveList, m Move) {
	for t := Queen; t >= Knight; t-- {
		ml.add(m.withPromo(t))
	}
}

// genPawns adds captures, en passant and promotions always, and the other
// pushes when quiets is set.
func (p *Position) genPawns(ml *MoveList, quiets bool) {
	us, them := p.side, p.side.Other()
	pawns := p.pieces[us][Pawn]
	empty := ^p.all
	var push, push2 Bitboard
	lastRank, forward := rank8, 8
	if us == White {
		push = pawns << 8 & empty
		push2 = (push & rank3) << 8 & empty
	} else {
		push = pawns >> 8 & empty
		push2 = (push & rank6) >> 8 & empty
		lastRank, forward = rank1, -8
	}
	for b := push & lastRank; b != 0; {
		to := popLSB(&b)
		addPromotions(ml, newMove(Square(int(to)-forward), to, Pawn))
	}
	if quiets {
		for b := push &^ lastRank; b != 0; {
			to := popLSB(&b)
			ml.add(newMove(Square(int(to)-forward), to, Pawn))
		}
		for b := push2; b != 0; {
			to := popLSB(&b)
			ml.add(newMove(Square(int(to)-2*forward), to, Pawn) | flagDouble)
		}
	}
	enemies := p.occ[them]
	for b := pawns; b != 0; {
		from := popLSB(&b)
		for t := tables.pawn[us][from] & enemies; t != 0; {
			to := popLSB(&t)
			m := newMove(from, to, Pawn).withCapture(p.board[to].Type())
			if lastRank.has(to) {
				addPromotions(ml, m)
			} else {
				ml.add(m)
			}
		}
	}
	if p.ep != NoSquare {
		for b := tables.pawn[them][p.ep] & pawns; b != 0; {
			from := popLSB(&b)
			ml.add(newMove(from, p.ep, Pawn).withCapture(Pawn) | flagEnPassant)
		}
	}
}

func (p *Position) genCastling(ml *MoveList) {
	us, them := p.side, p.side.Other()
	rights := p.castle
	home := Square(4)
	kBit, qBit := CastleWK, CastleWQ
	if us == Black {
		home, kBit, qBit = 60, CastleBK, CastleBQ
	}
	if rights&(kBit|qBit) == 0 || p.Attacked(home, them) {
		return
	}
	if rights&kBit != 0 && p.all&(bit(home+1)|bit(home+2)) == 0 &&
		!p.Attacked(home+1, them) && !p.Attacked(home+2, them) {
		ml.add(newMove(home, home+2, King) | flagCastle)
	}
	if rights&qBit != 0 && p.all&(bit(home-1)|bit(home-2)|bit(home-3)) == 0 &&
		!p.Attacked(home-1, them) && !p.Attacked(home-2, them) {
		ml.add(newMove(home, home-2, King) | flagCastle)
	}
}

// CheckInfo holds what the legality test needs, computed once per position.
type CheckInfo struct {
	king     Square
	checkers Bitboard
	pinned   Bitboard
}

// Checkers is the set of pieces giving check.
func (c *CheckInfo) Checkers() Bitboard { return c.checkers }

// CheckInfo computes the king square, checkers and pinned pieces of the side to move.
func (p *Position) CheckInfo() CheckInfo {
	us, them := p.side, p.side.Other()
	k := p.KingSquare(us)
	ci := CheckInfo{king: k, checkers: p.attackersTo(k, them, p.all)}
	tp := &p.pieces[them]
	snipers := rookAttacks(k, 0)&(tp[Rook]|tp[Queen]) | bishopAttacks(k, 0)&(tp[Bishop]|tp[Queen])
	for snipers != 0 {
		s := popLSB(&snipers)
		b := tables.between[k][s] & p.all
		if b.count() == 1 && b&p.occ[us] != 0 {
			ci.pinned |= b
		}
	}
	return ci
}

// IsLegal reports whether a pseudo-legal move from GenerateMoves or
// GenerateCaptures leaves the mover's king safe.
func (p *Position) IsLegal(m Move) bool {
	ci := p.CheckInfo()
	return p.IsLegalWith(&ci, m)
}

// IsLegalWith is IsLegal with the position's CheckInfo computed by the caller.
func (p *Position) IsLegalWith(ci *CheckInfo, m Move) bool {
	from, to := m.From(), m.To()
	them := p.side.Other()
	if m.Moving() == King {
		if m.IsCastle() {
			return true
		}
		return p.attackersTo(to, them, p.all^bit(from)) == 0
	}
	if m.IsEnPassant() {
		// Taking en passant empties two squares of one rank, which no pin
		// mask sees; test the resulting occupancy directly.
		captured := Square(int(to) - 8)
		if p.side == Black {
			captured = Square(int(to) + 8)
		}
		occ := p.all ^ bit(from) ^ bit(captured) | bit(to)
		tp := &p.pieces[them]
		k := ci.king
		return bishopAttacks(k, occ)&(tp[Bishop]|tp[Queen]) == 0 &&
			rookAttacks(k, occ)&(tp[Rook]|tp[Queen]) == 0 &&
			ci.checkers&(tp[Knight]|tp[Pawn])&^bit(captured) == 0
	}
	if ci.checkers != 0 {
		if ci.checkers.count() > 1 {
			return false
		}
		c := ci.checkers.lsb()
		if to != c && !tables.between[ci.king][c].has(to) {
			return false
		}
	}
	if ci.pinned.has(from) {
		return tables.line[ci.king][from].has(to)
	}
	return true
}

// LegalMoves is every legal move in generation order.
func (p *Position) LegalMoves() []Move {
	var ml MoveList
	p.GenerateMoves(&ml)
	ci := p.CheckInfo()
	out := make([]Move, 0, ml.N)
	for _, m := range ml.Slice() {
		if p.IsLegalWith(&ci, m) {
			out = append(out, m)
		}
	}
	return out
}

// HasLegalMove reports whether the side to move can move at all.
func (p *Position) HasLegalMove() bool {
	var ml MoveList
	p.GenerateMoves(&ml)
	ci := p.CheckInfo()
	for _, m := range ml.Slice() {
		if p.IsLegalWith(&ci, m) {
			return true
		}
	}
	return false
}

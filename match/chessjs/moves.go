package chessjs

// Move flags, as chess.js's BITS record them.
const (
	flagCapture uint8 = 1 << iota
	flagEnPassant
	flagCastleK
	flagCastleQ
	flagBigPawn
)

// legalMove is a legal move of a position.
type legalMove struct {
	from  int8 // squares, a1 = 0
	to    int8
	piece byte // 'p', 'n', 'b', 'r', 'q', 'k'
	promo byte // 0, 'n', 'b', 'r', 'q'
	flags uint8
}

// legalMoves returns the legal moves in the order chess.js's _moves()
// generates them, computed once per position; the permissive parser
// returns the first that matches, so the order decides between candidates
// (e7e8 is a knight because chess.js generates promotions n, b, r, q).
func (p *position) legalMoves() []legalMove {
	if p.legalOK {
		return p.legal
	}
	// A reachable position has at most 218 legal moves; append grows past
	// the buffer for a contrived FEN with more.
	var buf [256]legalMove
	ms := p.generate(buf[:0], false)
	p.legal, p.legalOK = append(make([]legalMove, 0, len(ms)), ms...), true
	return p.legal
}

// hasLegalMove reports whether p has a legal move, generating no more than
// the first when the list is not known yet.
func (p *position) hasLegalMove() bool {
	if p.legalOK {
		return len(p.legal) > 0
	}
	var buf [4]legalMove
	return len(p.generate(buf[:0], true)) > 0
}

// appendSAN appends chess.js's SAN of m without the check suffix. With
// eq false the promotion's '=' is left out, which is what chess.js's
// strippedSan leaves of a SAN.
func (p *position) appendSAN(b []byte, m *legalMove, eq bool) []byte {
	switch {
	case m.flags&flagCastleK != 0:
		return append(b, "O-O"...)
	case m.flags&flagCastleQ != 0:
		return append(b, "O-O-O"...)
	}
	if m.piece != 'p' {
		b = append(b, upper(m.piece))
		b = p.appendDisambiguator(b, m)
	}
	if m.flags&(flagCapture|flagEnPassant) != 0 {
		if m.piece == 'p' {
			b = append(b, 'a'+byte(m.from&7))
		}
		b = append(b, 'x')
	}
	b = append(b, 'a'+byte(m.to&7), '1'+byte(m.to>>3))
	if m.promo != 0 {
		if eq {
			b = append(b, '=')
		}
		b = append(b, upper(m.promo))
	}
	return b
}

// appendDisambiguator is chess.js's getDisambiguator: the full square when
// another such piece shares both the rank and the file, the rank when one
// shares the file, else the file.
func (p *position) appendDisambiguator(b []byte, m *legalMove) []byte {
	ambiguities, sameRank, sameFile := 0, 0, 0
	for i := range p.legal {
		o := &p.legal[i]
		if o.piece != m.piece || o.from == m.from || o.to != m.to {
			continue
		}
		ambiguities++
		if o.from>>3 == m.from>>3 {
			sameRank++
		}
		if o.from&7 == m.from&7 {
			sameFile++
		}
	}
	switch {
	case ambiguities == 0:
		return b
	case sameRank > 0 && sameFile > 0:
		return append(b, 'a'+byte(m.from&7), '1'+byte(m.from>>3))
	case sameFile > 0:
		return append(b, '1'+byte(m.from>>3))
	}
	return append(b, 'a'+byte(m.from&7))
}

// checkSuffix is "+" or "#" for a checking move, "" otherwise.
func (p *position) checkSuffix(m *legalMove) string {
	next := p.apply(m)
	switch {
	case !next.check:
		return ""
	case next.hasLegalMove():
		return "+"
	}
	return "#"
}

// publicMove converts m to the exported form, SAN included.
func (p *position) publicMove(m *legalMove, suffix string) Move {
	var buf [16]byte
	san := append(p.appendSAN(buf[:0], m, true), suffix...)
	return Move{From: squareName(m.from), To: squareName(m.to), Promotion: m.promo, SAN: string(san)}
}

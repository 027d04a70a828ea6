package chessjs

import "github.com/notnil/chess"

// Move flags, as chess.js's BITS record them.
const (
	flagCapture uint8 = 1 << iota
	flagEnPassant
	flagCastleK
	flagCastleQ
	flagCheck
	flagBigPawn
)

// legalMove is a legal move of a position, with the notnil move (and its
// tags) that Position.Update needs.
type legalMove struct {
	nm    *chess.Move
	from  int8
	to    int8
	piece byte // 'p', 'n', 'b', 'r', 'q', 'k'
	promo byte // 0, 'n', 'b', 'r', 'q'
	flags uint8
	order uint16 // rank in chess.js's generation order
}

// legalMoves returns the legal moves in the order chess.js's _moves()
// generates them; the permissive parser returns the first that matches, so
// the order decides between candidates (e7e8 is a knight because chess.js
// generates promotions n, b, r, q).
func (p *position) legalMoves() []legalMove {
	if p.legalOK {
		return p.legal
	}
	vm := p.pos.ValidMoves()
	ms := make([]legalMove, 0, len(vm))
	for _, nm := range vm {
		ms = append(ms, p.describe(nm))
	}
	for i := 1; i < len(ms); i++ {
		for j := i; j > 0 && ms[j].order < ms[j-1].order; j-- {
			ms[j], ms[j-1] = ms[j-1], ms[j]
		}
	}
	p.legal, p.legalOK = ms, true
	return ms
}

func (p *position) describe(nm *chess.Move) legalMove {
	m := legalMove{nm: nm, from: int8(nm.S1()), to: int8(nm.S2())}
	m.piece = lower(p.board[m.from])
	switch nm.Promo() {
	case chess.Queen:
		m.promo = 'q'
	case chess.Rook:
		m.promo = 'r'
	case chess.Bishop:
		m.promo = 'b'
	case chess.Knight:
		m.promo = 'n'
	}
	tags := [...]struct {
		tag  chess.MoveTag
		flag uint8
	}{
		{chess.Capture, flagCapture},
		{chess.EnPassant, flagEnPassant},
		{chess.KingSideCastle, flagCastleK},
		{chess.QueenSideCastle, flagCastleQ},
		{chess.Check, flagCheck},
	}
	for _, t := range tags {
		if nm.HasTag(t.tag) {
			m.flags |= t.flag
		}
	}
	if m.piece == 'p' && (m.to-m.from == 16 || m.from-m.to == 16) {
		m.flags |= flagBigPawn
	}
	m.order = generationOrder(&m, p.turn)
	return m
}

// chess.js's direction tables, as 0x88 offsets (one rank up is -16).
var (
	knightOffsets = []int{-18, -33, -31, -14, 18, 33, 31, 14}
	bishopOffsets = []int{-17, -15, 17, 15}
	rookOffsets   = []int{-16, 1, 16, -1}
	royalOffsets  = []int{-17, -16, -15, 1, 17, 16, 15, -1}
)

// generationOrder ranks m as chess.js generates it: by origin square from a8
// to h1; for a pawn the push (promotions n, b, r, q), the double push, then
// the captures in PAWN_OFFSETS order; for a piece by direction in
// PIECE_OFFSETS order, then distance; castling last, king side first.
func generationOrder(m *legalMove, us Color) uint16 {
	if m.flags&flagCastleK != 0 {
		return 0xff00
	}
	if m.flags&flagCastleQ != 0 {
		return 0xff01
	}
	ff, fr := int(m.from&7), int(m.from>>3)
	df, dr := int(m.to&7)-ff, int(m.to>>3)-fr
	x88 := (7-fr)*16 + ff
	sub := 0
	switch m.piece {
	case 'p':
		switch {
		case df == 0 && (dr == 1 || dr == -1):
			sub = 0
		case df == 0:
			sub = 1
		case (us == White) == (df < 0): // -17 for White, 17 for Black first
			sub = 2
		default:
			sub = 3
		}
	case 'n', 'k':
		offs := knightOffsets
		if m.piece == 'k' {
			offs = royalOffsets
		}
		sub = indexOf(offs, -16*dr+df) * 8
	default:
		dist := max(abs(df), abs(dr))
		offs := royalOffsets
		switch m.piece {
		case 'b':
			offs = bishopOffsets
		case 'r':
			offs = rookOffsets
		}
		sub = indexOf(offs, -16*sign(dr)+sign(df))*8 + dist
	}
	promo := 0
	switch m.promo {
	case 'b':
		promo = 1
	case 'r':
		promo = 2
	case 'q':
		promo = 3
	}
	return uint16(x88<<8 | sub<<2 | promo)
}

func indexOf(xs []int, x int) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return 0
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func sign(x int) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
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
	if m.flags&flagCheck == 0 {
		return ""
	}
	if p.pos.Update(m.nm).Status() == chess.Checkmate {
		return "#"
	}
	return "+"
}

// publicMove converts m to the exported form, SAN included.
func (p *position) publicMove(m *legalMove, suffix string) Move {
	var buf [16]byte
	san := append(p.appendSAN(buf[:0], m, true), suffix...)
	return Move{From: squareName(m.from), To: squareName(m.to), Promotion: m.promo, SAN: string(san)}
}

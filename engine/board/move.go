package board

// Move packs from (bits 0-5), to (6-11), promotion type (12-14, 0 for
// none), flags (15-18), the moving piece type (19-21) and the captured piece
// type (22-24). The zero Move is NullMove and is never legal.
type Move uint32

// NullMove is the absent move.
const NullMove Move = 0

const (
	flagCapture Move = 1 << (15 + iota)
	flagEnPassant
	flagCastle
	flagDouble
)

func newMove(from, to Square, moving PieceType) Move {
	return Move(from) | Move(to)<<6 | Move(moving)<<19
}

func (m Move) withCapture(t PieceType) Move { return m | flagCapture | Move(t)<<22 }
func (m Move) withPromo(t PieceType) Move   { return m | Move(t)<<12 }

// From is the origin square.
func (m Move) From() Square { return Square(m & 63) }

// To is the destination square.
func (m Move) To() Square { return Square(m >> 6 & 63) }

// Promotion is the piece a pawn becomes, or NoPieceType.
func (m Move) Promotion() PieceType {
	if t := PieceType(m >> 12 & 7); t != 0 {
		return t
	}
	return NoPieceType
}

// IsCapture includes en passant.
func (m Move) IsCapture() bool { return m&flagCapture != 0 }

// IsEnPassant reports an en-passant capture.
func (m Move) IsEnPassant() bool { return m&flagEnPassant != 0 }

// IsCastle reports castling (encoded as the king's two-square move).
func (m Move) IsCastle() bool { return m&flagCastle != 0 }

// Moving is the type of the piece that moves.
func (m Move) Moving() PieceType { return PieceType(m >> 19 & 7) }

// Captured is the type of the captured piece, or NoPieceType.
func (m Move) Captured() PieceType {
	if !m.IsCapture() {
		return NoPieceType
	}
	return PieceType(m >> 22 & 7)
}

// IsQuiet is neither a capture nor a promotion.
func (m Move) IsQuiet() bool { return m&(flagCapture|7<<12) == 0 }

const promoLetters = "pnbrqk"

// UCI is the canonical UCI string ("e2e4", "e7e8q", "e1g1"), "0000" for NullMove.
func (m Move) UCI() string {
	if m == NullMove {
		return "0000"
	}
	s := m.From().String() + m.To().String()
	if t := m.Promotion(); t != NoPieceType {
		s += string(promoLetters[t])
	}
	return s
}

func (m Move) String() string { return m.UCI() }

// MoveList is a fixed buffer. ParseFEN allows at most 16 pieces a side, so
// a pseudo-legal list has at most 15*27+8 = 413 moves.
type MoveList struct {
	Moves [448]Move
	N     int
}

func (l *MoveList) add(m Move) {
	l.Moves[l.N] = m
	l.N++
}

// Slice is the list's moves.
func (l *MoveList) Slice() []Move { return l.Moves[:l.N] }

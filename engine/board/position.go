package board

// Color is the side: White moves first.
type Color uint8

const (
	White Color = iota
	Black
)

// Other is the opposing colour.
func (c Color) Other() Color { return c ^ 1 }

// PieceType is a kind of piece regardless of colour.
type PieceType uint8

const (
	Pawn PieceType = iota
	Knight
	Bishop
	Rook
	Queen
	King
	NoPieceType
)

// Piece is a coloured piece: type + 6*colour; Empty is an empty square.
type Piece uint8

// Empty is the mailbox value of an empty square.
const Empty Piece = 12

func makePiece(c Color, t PieceType) Piece { return Piece(c)*6 + Piece(t) }

// Type is the piece's kind (NoPieceType for Empty).
func (p Piece) Type() PieceType {
	if p >= Empty {
		return NoPieceType
	}
	return PieceType(p % 6)
}

// Color is the piece's side (meaningless for Empty).
func (p Piece) Color() Color { return Color(p / 6) }

// Castling rights bits.
const (
	CastleWK uint8 = 1 << iota
	CastleWQ
	CastleBK
	CastleBQ
)

// Position is a chess position. It is a value: Play returns the next
// position and leaves the receiver untouched, so search keeps one per ply.
type Position struct {
	pieces   [2][6]Bitboard
	occ      [2]Bitboard
	all      Bitboard
	board    [64]Piece
	side     Color
	castle   uint8
	ep       Square // set only when an enemy pawn stands beside the pawn that moved two squares
	halfMove int
	fullMove int
	key      uint64
}

// Side is the colour to move.
func (p *Position) Side() Color { return p.side }

// HalfMove is the half-move clock of the fifty-move rule.
func (p *Position) HalfMove() int { return p.halfMove }

// FullMove is the FEN move number.
func (p *Position) FullMove() int { return p.fullMove }

// Key is the position's hash, equal for positions chess.js counts as the
// same for threefold repetition.
func (p *Position) Key() uint64 { return p.key }

// PieceAt is what stands on s.
func (p *Position) PieceAt(s Square) Piece { return p.board[s] }

// Pieces is the set of squares holding pieces of colour c and type t.
func (p *Position) Pieces(c Color, t PieceType) Bitboard { return p.pieces[c][t] }

// Occupied is the set of occupied squares of colour c.
func (p *Position) Occupied(c Color) Bitboard { return p.occ[c] }

// All is the set of occupied squares.
func (p *Position) All() Bitboard { return p.all }

// KingSquare is where c's king stands.
func (p *Position) KingSquare(c Color) Square { return p.pieces[c][King].lsb() }

func (p *Position) put(pc Piece, s Square) {
	c, t := pc.Color(), pc.Type()
	p.pieces[c][t] |= bit(s)
	p.occ[c] |= bit(s)
	p.all |= bit(s)
	p.board[s] = pc
	p.key ^= zobrist.piece[pc][s]
}

func (p *Position) remove(s Square) {
	pc := p.board[s]
	c, t := pc.Color(), pc.Type()
	p.pieces[c][t] &^= bit(s)
	p.occ[c] &^= bit(s)
	p.all &^= bit(s)
	p.board[s] = Empty
	p.key ^= zobrist.piece[pc][s]
}

// attackersTo is every piece of colour by attacking s with occupancy occ.
func (p *Position) attackersTo(s Square, by Color, occ Bitboard) Bitboard {
	pc := &p.pieces[by]
	att := tables.pawn[by.Other()][s] & pc[Pawn]
	att |= tables.knight[s] & pc[Knight]
	att |= tables.king[s] & pc[King]
	att |= bishopAttacks(s, occ) & (pc[Bishop] | pc[Queen])
	att |= rookAttacks(s, occ) & (pc[Rook] | pc[Queen])
	return att
}

// Attacked reports whether colour by attacks s.
func (p *Position) Attacked(s Square, by Color) bool {
	return p.attackersTo(s, by, p.all) != 0
}

// InCheck reports whether the side to move is in check.
func (p *Position) InCheck() bool {
	return p.Attacked(p.KingSquare(p.side), p.side.Other())
}

// InsufficientMaterial is chess.js 1.4.0's rule: K v K, K and one knight or
// bishop v K, or kings and bishops only with every bishop on one colour.
func (p *Position) InsufficientMaterial() bool {
	n := p.all.count()
	if n == 2 {
		return true
	}
	bishops := p.pieces[White][Bishop] | p.pieces[Black][Bishop]
	knights := p.pieces[White][Knight] | p.pieces[Black][Knight]
	if n == 3 && (bishops|knights) != 0 {
		return true
	}
	if n == bishops.count()+2 {
		return bishops&lightSquares == 0 || bishops&^lightSquares == 0
	}
	return false
}

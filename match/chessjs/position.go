package chessjs

// Castling rights as bits. The value is also the index of chess.js's
// castling key, whose index is (white flags >> 5) | (black flags >> 3).
const (
	castleWK uint8 = 1 << iota
	castleWQ
	castleBK
	castleBQ
)

// position is one position in chess.js's terms. A position is a value:
// apply returns the next one.
type position struct {
	board [64]byte  // FEN letters, 0 when empty; index is the notnil square (a1 = 0)
	b88   [128]byte // the same board in chess.js's 0x88 layout, for move generation
	kings [3]uint8  // 0x88 square of each side's king, indexed by Color
	turn  Color
	// castle holds chess.js's castling rights as the castle* bits.
	castle uint8
	// ep is chess.js's _epSquare: set after a two-square pawn move only when
	// an enemy pawn stands beside the pawn, whether or not it could capture.
	// It enters the hash, so it decides repetitions; fen() prints it only
	// when the capture is legal. -1 when unset.
	ep int8
	// nep is notnil's en-passant square, set after every two-square pawn
	// move, kept only to build the notnil position Game.Position returns.
	nep   int8
	half  int
	full  int
	hash  uint64
	check bool
	reps  int // times this hash has occurred in the game, this one included

	legal   []legalMove // in chess.js generation order; shared by clones, never modified
	legalOK bool
}

// pieceIndex maps a FEN letter to chess.js's key index: colour*6 + type,
// types ordered p, n, b, r, q, k.
var pieceIndex = [128]int8{
	'P': 0, 'N': 1, 'B': 2, 'R': 3, 'Q': 4, 'K': 5,
	'p': 6, 'n': 7, 'b': 8, 'r': 9, 'q': 10, 'k': 11,
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// colorOf tells the colour of a FEN letter (0 for an empty square).
func colorOf(c byte) Color {
	switch {
	case c == 0:
		return NoColor
	case c < 'a':
		return White
	}
	return Black
}

// letterFor returns the FEN letter of piece type t ('p'...'k') for colour c.
func letterFor(t byte, c Color) byte {
	if c == White {
		return upper(t)
	}
	return t
}

// squareNames holds every square's name, a1 first, so that naming one
// allocates nothing.
const squareNames = "a1b1c1d1e1f1g1h1a2b2c2d2e2f2g2h2a3b3c3d3e3f3g3h3a4b4c4d4e4f4g4h4" +
	"a5b5c5d5e5f5g5h5a6b6c6d6e6f6g6h6a7b7c7d7e7f7g7h7a8b8c8d8e8f8g8h8"

func squareName(sq int8) string { return squareNames[2*int(sq) : 2*int(sq)+2] }

// cornerRight is the castling right lost when a move leaves or lands on sq.
func cornerRight(sq int8) uint8 {
	switch sq {
	case 0: // a1
		return castleWQ
	case 7: // h1
		return castleWK
	case 56: // a8
		return castleBQ
	case 63: // h8
		return castleBK
	}
	return 0
}

func (p *position) computeHash() uint64 {
	var h uint64
	for sq, c := range p.board {
		if c != 0 {
			h ^= zobristPiece[pieceIndex[c&127]][sq]
		}
	}
	if p.ep >= 0 {
		h ^= zobristEP[p.ep&7]
	}
	h ^= zobristCastling[p.castle]
	if p.turn == Black {
		h ^= zobristSide
	}
	return h
}

// setBoard fills b88 and kings from board.
func (p *position) setBoard() {
	p.b88 = [128]byte{}
	for sq, c := range p.board {
		if c == 0 {
			continue
		}
		x := x88(int8(sq))
		p.b88[x] = c
		if lower(c) == 'k' {
			p.kings[colorOf(c)] = uint8(x)
		}
	}
}

// put sets square sq to c (0 to empty it), on both boards and in the hash.
func (p *position) put(sq int8, c byte) {
	if old := p.board[sq]; old != 0 {
		p.hash ^= zobristPiece[pieceIndex[old&127]][sq]
	}
	if c != 0 {
		p.hash ^= zobristPiece[pieceIndex[c&127]][sq]
	}
	p.board[sq] = c
	p.b88[x88(sq)] = c
}

// apply returns the position after m, a legal move of p, as chess.js's
// _makeMove computes it; the hash is updated square by square, to the value
// computeHash gives. reps is left for the game to count.
func (p *position) apply(m *legalMove) position {
	us := p.turn
	n := position{
		board:  p.board,
		b88:    p.b88,
		kings:  p.kings,
		turn:   us.Other(),
		castle: p.castle,
		ep:     -1,
		nep:    -1,
		half:   p.half + 1,
		full:   p.full,
		hash:   p.hash ^ zobristSide ^ zobristCastling[p.castle],
	}
	if p.ep >= 0 {
		n.hash ^= zobristEP[p.ep&7]
	}
	moving := n.board[m.from]
	n.put(m.from, 0)
	n.put(m.to, moving)
	switch {
	case m.flags&flagEnPassant != 0:
		if us == White {
			n.put(m.to-8, 0)
		} else {
			n.put(m.to+8, 0)
		}
	case m.flags&flagCastleK != 0:
		n.put(m.to-1, n.board[m.to+1])
		n.put(m.to+1, 0)
	case m.flags&flagCastleQ != 0:
		n.put(m.to+1, n.board[m.to-2])
		n.put(m.to-2, 0)
	}
	if m.promo != 0 {
		n.put(m.to, letterFor(m.promo, us))
	}
	if m.piece == 'k' {
		n.kings[us] = uint8(x88(m.to))
		if us == White {
			n.castle &^= castleWK | castleWQ
		} else {
			n.castle &^= castleBK | castleBQ
		}
	}
	n.castle &^= cornerRight(m.from) | cornerRight(m.to)
	n.hash ^= zobristCastling[n.castle]
	if m.flags&flagBigPawn != 0 {
		n.nep = (m.from + m.to) / 2
		if p.enemyPawnBeside(&n, m.to) {
			n.ep = n.nep
			n.hash ^= zobristEP[n.ep&7]
		}
	}
	if m.piece == 'p' || m.flags&(flagCapture|flagEnPassant) != 0 {
		n.half = 0
	}
	if us == Black {
		n.full++
	}
	n.check = attacked(&n.b88, int(n.kings[n.turn]), us)
	return n
}

// enemyPawnBeside reports whether, in n, a pawn of the side now to move
// stands next to sq on its rank: chess.js's condition for recording the
// en-passant square.
func (p *position) enemyPawnBeside(n *position, sq int8) bool {
	want := letterFor('p', n.turn)
	if sq&7 > 0 && n.board[sq-1] == want {
		return true
	}
	return sq&7 < 7 && n.board[sq+1] == want
}

// insufficientMaterial is chess.js's isInsufficientMaterial: K v K, K and
// one minor piece v K, or kings and bishops only, all on one square colour.
func (p *position) insufficientMaterial() bool {
	pieces, bishops, knights, light := 0, 0, 0, 0
	for sq, c := range p.board {
		switch c {
		case 0:
			continue
		case 'B', 'b':
			bishops++
			light += (sq>>3 + sq&7) & 1
		case 'N', 'n':
			knights++
		case 'P', 'p', 'R', 'r', 'Q', 'q':
			return false // none of the three cases below allows one
		}
		pieces++
	}
	switch {
	case pieces == 2:
		return true
	case pieces == 3 && (bishops == 1 || knights == 1):
		return true
	case pieces == bishops+2:
		return light == 0 || light == bishops
	}
	return false
}

// attacked reports whether a piece of colour by attacks sq.
func (p *position) attacked(sq int8, by Color) bool {
	return attacked(&p.b88, x88(sq), by)
}

// kingSquare returns the square of c's king.
func (p *position) kingSquare(c Color) int8 { return from88(int(p.kings[c])) }

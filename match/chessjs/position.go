package chessjs

import "github.com/notnil/chess"

// Castling rights as bits. The value is also the index of chess.js's
// castling key, whose index is (white flags >> 5) | (black flags >> 3).
const (
	castleWK uint8 = 1 << iota
	castleWQ
	castleBK
	castleBQ
)

// position is one position in chess.js's terms, beside the notnil position
// it mirrors. A position is a value: apply returns the next one.
type position struct {
	pos    *chess.Position
	board  [64]byte // FEN letters, 0 when empty; index is the notnil square (a1 = 0)
	turn   Color
	castle uint8
	// ep is chess.js's _epSquare: set after a two-square pawn move only when
	// an enemy pawn stands beside the pawn, whether or not it could capture.
	// It enters the hash, so it decides repetitions; fen() prints it only
	// when the capture is legal. -1 when unset.
	ep    int8
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

func squareName(sq int8) string {
	return string([]byte{'a' + byte(sq&7), '1' + byte(sq>>3)})
}

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

// apply returns the position after m, a legal move of p, as chess.js's
// _makeMove computes it. reps is left for the game to count.
func (p *position) apply(m *legalMove) position {
	us := p.turn
	n := position{
		pos:    p.pos.Update(m.nm),
		board:  p.board,
		turn:   us.Other(),
		castle: p.castle,
		ep:     -1,
		half:   p.half + 1,
		full:   p.full,
		check:  m.flags&flagCheck != 0,
	}
	moving := n.board[m.from]
	n.board[m.from] = 0
	n.board[m.to] = moving
	switch {
	case m.flags&flagEnPassant != 0:
		if us == White {
			n.board[m.to-8] = 0
		} else {
			n.board[m.to+8] = 0
		}
	case m.flags&flagCastleK != 0:
		n.board[m.to-1], n.board[m.to+1] = n.board[m.to+1], 0
	case m.flags&flagCastleQ != 0:
		n.board[m.to+1], n.board[m.to-2] = n.board[m.to-2], 0
	}
	if m.promo != 0 {
		n.board[m.to] = letterFor(m.promo, us)
	}
	if m.piece == 'k' {
		if us == White {
			n.castle &^= castleWK | castleWQ
		} else {
			n.castle &^= castleBK | castleBQ
		}
	}
	n.castle &^= cornerRight(m.from) | cornerRight(m.to)
	if m.flags&flagBigPawn != 0 && p.enemyPawnBeside(&n, m.to) {
		n.ep = (m.from + m.to) / 2
	}
	if m.piece == 'p' || m.flags&(flagCapture|flagEnPassant) != 0 {
		n.half = 0
	}
	if us == Black {
		n.full++
	}
	n.hash = n.computeHash()
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
	f, r := int(sq&7), int(sq>>3)
	at := func(df, dr int) byte {
		ff, rr := f+df, r+dr
		if ff < 0 || ff > 7 || rr < 0 || rr > 7 {
			return 0
		}
		return p.board[rr*8+ff]
	}
	pawnDir := -1 // a white pawn attacks upwards, so it stands below sq
	if by == Black {
		pawnDir = 1
	}
	if at(-1, pawnDir) == letterFor('p', by) || at(1, pawnDir) == letterFor('p', by) {
		return true
	}
	for _, d := range [8][2]int{{1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}} {
		if at(d[0], d[1]) == letterFor('n', by) {
			return true
		}
	}
	for _, d := range [8][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {1, -1}, {-1, 1}, {-1, -1}} {
		if at(d[0], d[1]) == letterFor('k', by) {
			return true
		}
		diagonal := d[0] != 0 && d[1] != 0
		for i := 1; i < 8; i++ {
			ff, rr := f+d[0]*i, r+d[1]*i
			if ff < 0 || ff > 7 || rr < 0 || rr > 7 {
				break
			}
			c := p.board[rr*8+ff]
			if c == 0 {
				continue
			}
			if colorOf(c) == by {
				t := lower(c)
				if t == 'q' || (diagonal && t == 'b') || (!diagonal && t == 'r') {
					return true
				}
			}
			break
		}
	}
	return false
}

// kingSquare returns the square of c's king, or -1.
func (p *position) kingSquare(c Color) int8 {
	want := letterFor('k', c)
	for sq, x := range p.board {
		if x == want {
			return int8(sq)
		}
	}
	return -1
}

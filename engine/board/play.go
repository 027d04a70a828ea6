package board

import "fmt"

// castleKeep[s] is the castling rights that survive a move from or to s.
var castleKeep = func() (k [64]uint8) {
	for i := range k {
		k[i] = 15
	}
	k[sq(4, 0)] &^= CastleWK | CastleWQ
	k[sq(0, 0)] &^= CastleWQ
	k[sq(7, 0)] &^= CastleWK
	k[sq(4, 7)] &^= CastleBK | CastleBQ
	k[sq(0, 7)] &^= CastleBQ
	k[sq(7, 7)] &^= CastleBK
	return k
}()

// Play returns the position after m, which must be legal here.
func (p *Position) Play(m Move) Position {
	q := *p
	q.Apply(m)
	return q
}

// Apply plays the legal move m on p in place (search copies the position
// into the next ply and applies there).
func (p *Position) Apply(m Move) {
	us, them := p.side, p.side.Other()
	from, to := m.From(), m.To()
	p.key ^= zobrist.castle[p.castle]
	if p.ep != NoSquare {
		p.key ^= zobrist.epFile[p.ep.File()]
		p.ep = NoSquare
	}
	pc := p.board[from]
	p.halfMove++
	if m.IsCapture() {
		p.halfMove = 0
		if m.IsEnPassant() {
			if us == White {
				p.remove(to - 8)
			} else {
				p.remove(to + 8)
			}
		} else {
			p.remove(to)
		}
	}
	p.remove(from)
	if t := m.Promotion(); t != NoPieceType {
		p.put(makePiece(us, t), to)
	} else {
		p.put(pc, to)
	}
	if pc.Type() == Pawn {
		p.halfMove = 0
		if m&flagDouble != 0 {
			// chess.js records the en-passant square, and hashes it, only
			// when an enemy pawn stands beside the pawn that moved.
			mid := Square((int(from) + int(to)) / 2)
			if tables.pawn[us][mid]&p.pieces[them][Pawn] != 0 {
				p.ep = mid
				p.key ^= zobrist.epFile[mid.File()]
			}
		}
	}
	if m.IsCastle() {
		if to > from {
			p.remove(to + 1)
			p.put(makePiece(us, Rook), to-1)
		} else {
			p.remove(to - 2)
			p.put(makePiece(us, Rook), to+1)
		}
	}
	p.castle &= castleKeep[from] & castleKeep[to]
	p.key ^= zobrist.castle[p.castle]
	if us == Black {
		p.fullMove++
	}
	p.side = them
	p.key ^= zobrist.side
}

// ApplyNull passes the move (null-move pruning); never call it in check.
func (p *Position) ApplyNull() {
	if p.ep != NoSquare {
		p.key ^= zobrist.epFile[p.ep.File()]
		p.ep = NoSquare
	}
	p.halfMove++
	p.side = p.side.Other()
	p.key ^= zobrist.side
}

// MoveError says why a UCI move string was refused.
type MoveError struct {
	Move   string
	FEN    string
	Reason string
}

func (e *MoveError) Error() string {
	return fmt.Sprintf("board: move %q in %s: %s", e.Move, e.FEN, e.Reason)
}

// ParseUCI finds the legal move written s in canonical UCI ("e2e4",
// "e7e8q", castling as the king's move "e1g1"). A promotion must name its
// piece in lowercase.
func (p *Position) ParseUCI(s string) (Move, error) {
	fail := func(reason string) (Move, error) {
		return NullMove, &MoveError{Move: s, FEN: p.FEN(), Reason: reason}
	}
	if len(s) != 4 && len(s) != 5 {
		return fail("not a UCI move")
	}
	from, ok1 := ParseSquare(s[0:2])
	to, ok2 := ParseSquare(s[2:4])
	if !ok1 || !ok2 {
		return fail("not a UCI move")
	}
	promo := NoPieceType
	if len(s) == 5 {
		switch s[4] {
		case 'n':
			promo = Knight
		case 'b':
			promo = Bishop
		case 'r':
			promo = Rook
		case 'q':
			promo = Queen
		default:
			return fail("bad promotion piece")
		}
	}
	for _, m := range p.LegalMoves() {
		if m.From() == from && m.To() == to && m.Promotion() == promo {
			return m, nil
		}
	}
	return fail("illegal")
}

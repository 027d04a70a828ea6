package board

import (
	"fmt"
	"strconv"
	"strings"
)

// StartFEN is the standard initial position.
const StartFEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

// FENError says why a FEN was refused.
type FENError struct {
	FEN    string
	Reason string
}

func (e *FENError) Error() string { return fmt.Sprintf("board: bad FEN %q: %s", e.FEN, e.Reason) }

const pieceLetters = "PNBRQKpnbrqk"

// ParseFEN reads a FEN. As chess.js does, missing trailing fields default to
// "- - 0 1". Castling rights whose king or rook is not on its home square
// are dropped, and an en-passant square is kept only when an enemy pawn
// could take on it, so that Key matches chess.js's repetition identity.
// Positions the search cannot handle are refused: not one king a side, more
// than 16 pieces or 8 pawns a side, pawns on the first or last rank, or the
// side not to move in check.
func ParseFEN(fen string) (Position, error) {
	fail := func(format string, a ...any) (Position, error) {
		return Position{}, &FENError{FEN: fen, Reason: fmt.Sprintf(format, a...)}
	}
	fields := strings.Fields(fen)
	if len(fields) < 2 || len(fields) > 6 {
		return fail("want 2 to 6 fields, got %d", len(fields))
	}
	fields = append(fields, []string{"-", "-", "0", "1"}[len(fields)-2:]...)

	var p Position
	for i := range p.board {
		p.board[i] = Empty
	}
	ranks := strings.Split(fields[0], "/")
	if len(ranks) != 8 {
		return fail("want 8 ranks, got %d", len(ranks))
	}
	for i, row := range ranks {
		rank, file := 7-i, 0
		for _, ch := range row {
			switch {
			case ch >= '1' && ch <= '8':
				file += int(ch - '0')
			case strings.ContainsRune(pieceLetters, ch):
				if file > 7 {
					return fail("rank %d is longer than 8 squares", rank+1)
				}
				p.put(Piece(strings.IndexRune(pieceLetters, ch)), sq(file, rank))
				file++
			default:
				return fail("unexpected %q in the board", ch)
			}
		}
		if file != 8 {
			return fail("rank %d has %d squares", rank+1, file)
		}
	}
	for c := White; c <= Black; c++ {
		if p.pieces[c][King].count() != 1 {
			return fail("want one king a side")
		}
		if p.occ[c].count() > 16 || p.pieces[c][Pawn].count() > 8 {
			return fail("more than 16 pieces or 8 pawns a side")
		}
	}
	if (p.pieces[White][Pawn]|p.pieces[Black][Pawn])&(rank1|rank8) != 0 {
		return fail("a pawn on the first or last rank")
	}

	switch fields[1] {
	case "w":
		p.side = White
	case "b":
		p.side = Black
	default:
		return fail("side to move %q", fields[1])
	}
	if p.Attacked(p.KingSquare(p.side.Other()), p.side) {
		return fail("the side not to move is in check")
	}

	if fields[2] != "-" {
		for _, ch := range fields[2] {
			i := strings.IndexRune("KQkq", ch)
			if i < 0 {
				return fail("castling %q", fields[2])
			}
			p.castle |= 1 << i
		}
	}
	p.castle &= p.possibleCastling()

	p.ep = NoSquare
	if fields[3] != "-" {
		s, ok := ParseSquare(fields[3])
		if !ok {
			return fail("en-passant square %q", fields[3])
		}
		if p.enPassantPlausible(s) {
			p.ep = s
		}
	}

	hm, err := strconv.Atoi(fields[4])
	if err != nil || hm < 0 {
		return fail("half-move clock %q", fields[4])
	}
	fm, err := strconv.Atoi(fields[5])
	if err != nil || fm < 0 {
		return fail("move number %q", fields[5])
	}
	if fm == 0 {
		fm = 1
	}
	p.halfMove, p.fullMove = hm, fm
	p.key = p.computeKey()
	return p, nil
}

// possibleCastling is the set of rights whose king and rook stand at home.
func (p *Position) possibleCastling() uint8 {
	var r uint8
	w, b := &p.pieces[White], &p.pieces[Black]
	if w[King].has(sq(4, 0)) {
		if w[Rook].has(sq(7, 0)) {
			r |= CastleWK
		}
		if w[Rook].has(sq(0, 0)) {
			r |= CastleWQ
		}
	}
	if b[King].has(sq(4, 7)) {
		if b[Rook].has(sq(7, 7)) {
			r |= CastleBK
		}
		if b[Rook].has(sq(0, 7)) {
			r |= CastleBQ
		}
	}
	return r
}

// enPassantPlausible: s is behind an enemy pawn that could just have moved
// two squares, and a pawn of the side to move stands beside that pawn.
func (p *Position) enPassantPlausible(s Square) bool {
	us, them := p.side, p.side.Other()
	wantRank, step := 5, -8
	if us == Black {
		wantRank, step = 2, 8
	}
	if s.Rank() != wantRank {
		return false
	}
	pawnSq := Square(int(s) + step)
	origin := Square(int(s) - step)
	if !p.pieces[them][Pawn].has(pawnSq) || p.all.has(s) || p.all.has(origin) {
		return false
	}
	return tables.pawn[them][s]&p.pieces[us][Pawn] != 0
}

// FEN prints the position as chess.js 1.4.0 fen() does: the en-passant
// square only when an en-passant capture is legal.
func (p *Position) FEN() string {
	var b strings.Builder
	for rank := 7; rank >= 0; rank-- {
		empty := 0
		for file := 0; file < 8; file++ {
			pc := p.board[sq(file, rank)]
			if pc == Empty {
				empty++
				continue
			}
			if empty > 0 {
				b.WriteByte(byte('0' + empty))
				empty = 0
			}
			b.WriteByte(pieceLetters[pc])
		}
		if empty > 0 {
			b.WriteByte(byte('0' + empty))
		}
		if rank > 0 {
			b.WriteByte('/')
		}
	}
	b.WriteString([]string{" w ", " b "}[p.side])
	if p.castle == 0 {
		b.WriteByte('-')
	}
	for i, ch := range "KQkq" {
		if p.castle&(1<<i) != 0 {
			b.WriteRune(ch)
		}
	}
	ep := "-"
	if p.ep != NoSquare {
		var ml MoveList
		p.GenerateMoves(&ml)
		for _, m := range ml.Slice() {
			if m.IsEnPassant() && p.IsLegal(m) {
				ep = p.ep.String()
				break
			}
		}
	}
	fmt.Fprintf(&b, " %s %d %d", ep, p.halfMove, p.fullMove)
	return b.String()
}

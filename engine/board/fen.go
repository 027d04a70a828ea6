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
	fields := strings.Fields(fen)
	if len(fields) < 2 || len(fields) > 6 {
		return Position{}, &FENError{FEN: fen, Reason: fmt.Sprintf("want 2 to 6 fields, got %d", len(fields))}
	}
	fields = append(fields, []string{"-", "-", "0", "1"}[len(fields)-2:]...)

	var p Position
	for i := range p.board {
		p.board[i] = Empty
	}
	why := p.placePieces(fields[0])
	if why == "" {
		why = p.checkMaterial()
	}
	if why == "" {
		why = p.setSide(fields[1])
	}
	if why == "" {
		why = p.setCastling(fields[2])
	}
	if why == "" {
		why = p.setEnPassant(fields[3])
	}
	if why == "" {
		why = p.setCounters(fields[4], fields[5])
	}
	if why != "" {
		return Position{}, &FENError{FEN: fen, Reason: why}
	}
	p.key = p.computeKey()
	return p, nil
}

// The steps of ParseFEN each fill one part of p from its FEN field and
// return why the field was refused, or "" when it was accepted.

// placePieces reads the board field.
func (p *Position) placePieces(field string) string {
	ranks := strings.Split(field, "/")
	if len(ranks) != 8 {
		return fmt.Sprintf("want 8 ranks, got %d", len(ranks))
	}
	for i, row := range ranks {
		rank, file := 7-i, 0
		for _, ch := range row {
			switch {
			case ch >= '1' && ch <= '8':
				file += int(ch - '0')
			case strings.ContainsRune(pieceLetters, ch):
				if file > 7 {
					return fmt.Sprintf("rank %d is longer than 8 squares", rank+1)
				}
				p.put(Piece(strings.IndexRune(pieceLetters, ch)), sq(file, rank))
				file++
			default:
				return fmt.Sprintf("unexpected %q in the board", ch)
			}
		}
		if file != 8 {
			return fmt.Sprintf("rank %d has %d squares", rank+1, file)
		}
	}
	return ""
}

// checkMaterial refuses the piece sets the search cannot handle.
func (p *Position) checkMaterial() string {
	for c := White; c <= Black; c++ {
		if p.pieces[c][King].count() != 1 {
			return "want one king a side"
		}
		if p.occ[c].count() > 16 || p.pieces[c][Pawn].count() > 8 {
			return "more than 16 pieces or 8 pawns a side"
		}
	}
	if (p.pieces[White][Pawn]|p.pieces[Black][Pawn])&(rank1|rank8) != 0 {
		return "a pawn on the first or last rank"
	}
	return ""
}

// setSide reads the side to move, which must not be able to take the king.
func (p *Position) setSide(field string) string {
	switch field {
	case "w":
		p.side = White
	case "b":
		p.side = Black
	default:
		return fmt.Sprintf("side to move %q", field)
	}
	if p.Attacked(p.KingSquare(p.side.Other()), p.side) {
		return "the side not to move is in check"
	}
	return ""
}

// setCastling reads the castling rights, keeping those still possible.
func (p *Position) setCastling(field string) string {
	if field != "-" {
		for _, ch := range field {
			i := strings.IndexRune("KQkq", ch)
			if i < 0 {
				return fmt.Sprintf("castling %q", field)
			}
			p.castle |= 1 << i
		}
	}
	p.castle &= p.possibleCastling()
	return ""
}

// setEnPassant reads the en-passant square, kept only when plausible.
func (p *Position) setEnPassant(field string) string {
	p.ep = NoSquare
	if field == "-" {
		return ""
	}
	s, ok := ParseSquare(field)
	if !ok {
		return fmt.Sprintf("en-passant square %q", field)
	}
	if p.enPassantPlausible(s) {
		p.ep = s
	}
	return ""
}

// setCounters reads the half-move clock and move number (0 read as 1).
func (p *Position) setCounters(half, full string) string {
	hm, err := strconv.Atoi(half)
	if err != nil || hm < 0 {
		return fmt.Sprintf("half-move clock %q", half)
	}
	fm, err := strconv.Atoi(full)
	if err != nil || fm < 0 {
		return fmt.Sprintf("move number %q", full)
	}
	if fm == 0 {
		fm = 1
	}
	p.halfMove, p.fullMove = hm, fm
	return ""
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

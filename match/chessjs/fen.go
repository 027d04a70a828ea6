package chessjs

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/notnil/chess"
)

// StartFEN is the standard start position, as chess.js prints it.
const StartFEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

// appendFEN appends chess.js's fen(): the en-passant square only when an
// en-passant capture is legal.
func (p *position) appendFEN(b []byte) []byte {
	ep := int8(-1)
	if p.ep >= 0 && p.epCaptureLegal() {
		ep = p.ep
	}
	return p.appendFENWithEP(b, ep)
}

// appendFENWithEP writes the position with ep (or "-" when negative) as its
// en-passant field.
func (p *position) appendFENWithEP(b []byte, ep int8) []byte {
	for rank := 7; rank >= 0; rank-- {
		empty := byte(0)
		for file := 0; file < 8; file++ {
			c := p.board[rank*8+file]
			if c == 0 {
				empty++
				continue
			}
			if empty > 0 {
				b = append(b, '0'+empty)
				empty = 0
			}
			b = append(b, c)
		}
		if empty > 0 {
			b = append(b, '0'+empty)
		}
		if rank > 0 {
			b = append(b, '/')
		}
	}
	b = append(b, ' ')
	b = append(b, p.turn.String()...)
	b = append(b, ' ')
	if p.castle == 0 {
		b = append(b, '-')
	}
	for i, c := range "KQkq" {
		if p.castle&(1<<i) != 0 {
			b = append(b, byte(c))
		}
	}
	b = append(b, ' ')
	if ep >= 0 {
		b = append(b, 'a'+byte(ep&7), '1'+byte(ep>>3))
	} else {
		b = append(b, '-')
	}
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(p.half), 10)
	b = append(b, ' ')
	return strconv.AppendInt(b, int64(p.full), 10)
}

func (p *position) epCaptureLegal() bool {
	for _, m := range p.legalMoves() {
		if m.flags&flagEnPassant != 0 {
			return true
		}
	}
	return false
}

// maxCounter bounds the FEN move counters, far beyond any game, so that
// they print the same in Go and JavaScript.
const maxCounter = 1 << 30

// parseFEN reads a FEN as chess.js's load() does (missing trailing fields
// default to "- - 0 1", then validateFen), and refuses in addition the
// positions chess.js would play incoherently (see the package doc).
func parseFEN(fen string) (position, error) {
	fail := func(reason string) (position, error) {
		return position{}, &FENError{FEN: fen, Reason: reason}
	}
	tokens := splitJSWhitespace(fen)
	if n := len(tokens); n >= 2 && n < 6 {
		tokens = append(tokens, []string{"-", "-", "0", "1"}[n-2:]...)
	}
	if len(tokens) != 6 {
		return fail("must contain six space-delimited fields")
	}
	full, ok := parseJSInt(tokens[5])
	if !ok || full <= 0 {
		return fail("move number must be a positive integer")
	}
	half, ok := parseJSInt(tokens[4])
	if !ok || half < 0 {
		return fail("half move counter must be a non-negative integer")
	}
	if half > maxCounter || full > maxCounter {
		return fail("move counter out of range")
	}
	epField := tokens[3]
	if epField != "-" && !(len(epField) == 2 && 'a' <= epField[0] && epField[0] <= 'h' && (epField[1] == '3' || epField[1] == '6')) {
		return fail("en-passant square is invalid")
	}
	if strings.Trim(tokens[2], "kKqQ-") != "" {
		return fail("castling availability is invalid")
	}
	var p position
	switch tokens[1] {
	case "w":
		p.turn = White
	case "b":
		p.turn = Black
	default:
		return fail("side-to-move is invalid")
	}
	if err := p.readBoard(tokens[0]); err != "" {
		return fail(err)
	}
	p.setBoard()
	p.ep = -1
	if epField != "-" {
		if (epField[1] == '3') == (p.turn == White) {
			return fail("illegal en-passant square")
		}
		p.ep = int8(epField[1]-'1')*8 + int8(epField[0]-'a')
	}
	for i, c := range "KQkq" {
		if strings.ContainsRune(tokens[2], c) {
			p.castle |= 1 << i
		}
	}
	p.half, p.full = half, full
	if err := p.checkCoherent(); err != "" {
		return fail(err)
	}
	p.check = p.attacked(p.kingSquare(p.turn), p.turn.Other())
	p.hash = p.computeHash()
	p.nep = p.ep
	// Game.Position builds the notnil position from the FEN, so a FEN
	// notnil would refuse is refused here.
	if _, err := p.notnil(); err != nil {
		return fail(err.Error())
	}
	return p, nil
}

// notnil builds the notnil position equal to p, with notnil's en-passant
// square, as a chain of notnil Position.Update calls from the start would
// give it.
func (p *position) notnil() (*chess.Position, error) {
	var buf [96]byte
	pos := &chess.Position{}
	if err := pos.UnmarshalText(p.appendFENWithEP(buf[:0], p.nep)); err != nil {
		return nil, err
	}
	return pos, nil
}

// readBoard fills p.board from the piece placement, with validateFen's
// checks: eight rows of eight squares, no two digits in a row, one king of
// each colour, no pawn on the first or last rank.
func (p *position) readBoard(placement string) string {
	rows := strings.Split(placement, "/")
	if len(rows) != 8 {
		return "piece data does not contain 8 '/'-delimited rows"
	}
	kings := map[byte]int{}
	for i, row := range rows {
		rank, file, prevDigit := 7-i, 0, false
		for k := 0; k < len(row); k++ {
			c := row[k]
			if '0' <= c && c <= '9' {
				if prevDigit {
					return "piece data is invalid (consecutive number)"
				}
				file += int(c - '0')
				prevDigit = true
				continue
			}
			if !strings.ContainsRune("prnbqkPRNBQK", rune(c)) {
				return "piece data is invalid (invalid piece)"
			}
			if file < 8 {
				p.board[rank*8+file] = c
			}
			file++
			prevDigit = false
			if lower(c) == 'k' {
				kings[c]++
			}
			if lower(c) == 'p' && (rank == 0 || rank == 7) {
				return "some pawns are on the edge rows"
			}
		}
		if file != 8 {
			return "piece data is invalid (too many squares in rank)"
		}
	}
	if kings['K'] != 1 || kings['k'] != 1 {
		return "there must be exactly one king of each colour"
	}
	return ""
}

// checkCoherent refuses what validateFen lets through but chess.js would
// play incoherently, which the generator here does not try to reproduce.
func (p *position) checkCoherent() string {
	corners := [4]struct {
		right      uint8
		king, rook int8
		k, r       byte
	}{
		{castleWK, 4, 7, 'K', 'R'},
		{castleWQ, 4, 0, 'K', 'R'},
		{castleBK, 60, 63, 'k', 'r'},
		{castleBQ, 60, 56, 'k', 'r'},
	}
	for _, c := range corners {
		if p.castle&c.right != 0 && (p.board[c.king] != c.k || p.board[c.rook] != c.r) {
			return "castling right without its king and rook in place"
		}
	}
	if p.ep >= 0 {
		front, behind := p.ep+8, p.ep-8 // the pawn that moved, and its origin
		if p.turn == White {
			front, behind = p.ep-8, p.ep+8
		}
		if p.board[p.ep] != 0 || p.board[behind] != 0 || p.board[front] != letterFor('p', p.turn.Other()) {
			return "en-passant square without a pawn that just moved two squares"
		}
	}
	if p.attacked(p.kingSquare(p.turn.Other()), p.turn) {
		return "the side not to move is in check"
	}
	return ""
}

// splitJSWhitespace is JavaScript's s.split(/\s+/).
func splitJSWhitespace(s string) []string {
	var out []string
	start, inSpace := 0, false
	for i, r := range s {
		sp := isJSSpace(r)
		switch {
		case sp && !inSpace:
			out = append(out, s[start:i])
			inSpace = true
		case !sp && inSpace:
			start = i
			inSpace = false
		}
	}
	if inSpace {
		return append(out, "")
	}
	return append(out, s[start:])
}

func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return 0x2000 <= r && r <= 0x200a
}

// parseJSInt is parseInt(s, 10): leading whitespace, a sign, then as many
// digits as there are; ok is false where JavaScript gives NaN.
func parseJSInt(s string) (int, bool) {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isJSSpace(r) {
			break
		}
		i += size
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	n, digits := 0, 0
	for ; i < len(s) && '0' <= s[i] && s[i] <= '9'; i++ {
		if n <= maxCounter {
			n = n*10 + int(s[i]-'0')
		}
		digits++
	}
	if digits == 0 {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

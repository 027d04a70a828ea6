package chessjs

import "strings"

// This file emulates chess.js 1.4.0's Chess.move(string), that is
// _moveFromSan(move, strict=false), step by step. Each function names the
// JavaScript it stands for. Strings are handled as UTF-8 bytes: every
// pattern chess.js applies matches ASCII characters only, and no byte of a
// multi-byte UTF-8 sequence is ASCII, so matches and captured groups are the
// same as on JavaScript's UTF-16 code units. The one exception, the first
// character's toLowerCase() in inferPieceType, is handled there.

// parse returns the legal move chess.js's move(s) would make.
func (p *position) parse(s string) (*legalMove, error) {
	clean := strippedSAN(s)
	if clean == "--" {
		return nil, &MoveError{Input: s, Err: ErrNullMove}
	}
	switch clean {
	case "0-0":
		clean = "O-O"
	case "0-0-0":
		clean = "O-O-O"
	}
	legal := p.legalMoves()
	if m := p.matchStrict(legal, clean); m != nil {
		return m, nil
	}
	if m := p.matchPermissive(legal, clean); m != nil {
		return m, nil
	}
	return nil, &MoveError{Input: s, Err: ErrIllegalMove}
}

// strippedSAN is chess.js's strippedSan: it deletes the first '=' (the
// pattern /=/ has no g flag), then /[+#]?[?!]*$/: a final run of '?' and
// '!' with at most one '+' or '#' before it.
func strippedSAN(s string) string {
	if i := strings.IndexByte(s, '='); i >= 0 {
		s = s[:i] + s[i+1:]
	}
	end := len(s)
	for end > 0 && (s[end-1] == '?' || s[end-1] == '!') {
		end--
	}
	if end > 0 && (s[end-1] == '+' || s[end-1] == '#') {
		end--
	}
	return s[:end]
}

// matchStrict is the strict half of _moveFromSan: the move whose stripped
// SAN equals clean. SANs are unique among legal moves and chess.js's piece
// filter always keeps the move whose SAN matches, so only the destination
// square (and promotion) read from the end of clean need be tried.
func (p *position) matchStrict(legal []legalMove, clean string) *legalMove {
	var flag uint8
	switch clean {
	case "O-O":
		flag = flagCastleK
	case "O-O-O":
		flag = flagCastleQ
	}
	if flag != 0 {
		for i := range legal {
			if legal[i].flags&flag != 0 {
				return &legal[i]
			}
		}
		return nil
	}
	n := len(clean)
	promo := byte(0)
	if n >= 3 && strings.IndexByte("NBRQ", clean[n-1]) >= 0 {
		promo = lower(clean[n-1])
		n--
	}
	if n < 2 || !isFile(clean[n-2]) || !isRank(clean[n-1]) {
		return nil
	}
	to := square(clean[n-2], clean[n-1])
	var buf [16]byte
	for i := range legal {
		m := &legal[i]
		if m.to != to || m.promo != promo {
			continue
		}
		if string(p.appendSAN(buf[:0], m, false)) == clean {
			return m
		}
	}
	return nil
}

// looseMatch holds the groups of chess.js's permissive regular expressions.
type looseMatch struct {
	piece byte   // group 1, as written (either case), or 0
	from  string // group 2: "", a file, a rank or a square
	to    int8   // group 3
	promo byte   // group 4, as written, or 0
}

// matchPermissive is the permissive half of _moveFromSan.
func (p *position) matchPermissive(legal []legalMove, clean string) *legalMove {
	lm, ok := matchLoose(clean, true)
	if !ok {
		lm, ok = matchLoose(clean, false)
	}
	if !ok {
		return nil
	}
	filter := inferPieceType(clean)
	if lm.piece != 0 {
		filter = pieceFilter{kind: filterType, piece: lower(lm.piece)}
	}
	overlyDisambiguated := len(lm.from) == 1
	from := int8(-1)
	if len(lm.from) == 2 {
		from = square(lm.from[0], lm.from[1])
	}
	var buf [16]byte
	for i := range legal {
		m := &legal[i]
		if !filter.keeps(m) {
			continue
		}
		pieceOK := lm.piece == 0 || lower(lm.piece) == m.piece
		promoOK := lm.promo == 0 || lower(lm.promo) == m.promo
		switch {
		case lm.from == "":
			// chess.js: cleanMove === strippedSan(san).replace('x', ''), a
			// capture written without its 'x'.
			if m.to == lm.to && string(removeFirstX(p.appendSAN(buf[:0], m, false))) == clean {
				return m
			}
		case pieceOK && from == m.from && lm.to == m.to && promoOK:
			return m
		case overlyDisambiguated:
			c := lm.from[0]
			if pieceOK && lm.to == m.to && (c == 'a'+byte(m.from&7) || c == '1'+byte(m.from>>3)) && promoOK {
				return m
			}
		}
	}
	return nil
}

func removeFirstX(b []byte) []byte {
	for i, c := range b {
		if c == 'x' {
			return append(b[:i], b[i+1:]...)
		}
	}
	return b
}

// matchLoose runs chess.js's first permissive pattern (fullFrom)
//
//	/([pnbrqkPNBRQK])?([a-h][1-8])x?-?([a-h][1-8])([qrbnQRBN])?/
//
// or its second
//
//	/([pnbrqkPNBRQK])?([a-h]?[1-8]?)x?-?([a-h][1-8])([qrbnQRBN])?/
//
// with JavaScript's semantics: not anchored, the leftmost match, and within
// it the alternatives a backtracking matcher tries first (every optional
// part is greedy).
func matchLoose(s string, fullFrom bool) (looseMatch, bool) {
	for start := 0; start <= len(s); start++ {
		for _, withPiece := range [2]bool{true, false} {
			i := start
			var piece byte
			if withPiece {
				if i >= len(s) || strings.IndexByte("pnbrqkPNBRQK", s[i]) < 0 {
					continue
				}
				piece = s[i]
				i++
			}
			if fullFrom {
				if i+1 < len(s) && isFile(s[i]) && isRank(s[i+1]) {
					if to, promo, ok := matchTail(s, i+2); ok {
						return looseMatch{piece, s[i : i+2], to, promo}, true
					}
				}
				continue
			}
			for _, takeFile := range [2]bool{true, false} {
				j := i
				if takeFile {
					if j >= len(s) || !isFile(s[j]) {
						continue
					}
					j++
				}
				for _, takeRank := range [2]bool{true, false} {
					k := j
					if takeRank {
						if k >= len(s) || !isRank(s[k]) {
							continue
						}
						k++
					}
					if to, promo, ok := matchTail(s, k); ok {
						return looseMatch{piece, s[i:k], to, promo}, true
					}
				}
			}
		}
	}
	return looseMatch{}, false
}

// matchTail matches x?-?([a-h][1-8])([qrbnQRBN])? at s[i:].
func matchTail(s string, i int) (to int8, promo byte, ok bool) {
	for _, takeX := range [2]bool{true, false} {
		j := i
		if takeX {
			if j >= len(s) || s[j] != 'x' {
				continue
			}
			j++
		}
		for _, takeDash := range [2]bool{true, false} {
			k := j
			if takeDash {
				if k >= len(s) || s[k] != '-' {
					continue
				}
				k++
			}
			if k+1 < len(s) && isFile(s[k]) && isRank(s[k+1]) {
				if k+2 < len(s) && strings.IndexByte("qrbnQRBN", s[k+2]) >= 0 {
					promo = s[k+2]
				}
				return square(s[k], s[k+1]), promo, true
			}
		}
	}
	return 0, 0, false
}

// pieceFilter is the piece argument chess.js passes to _moves().
type pieceFilter struct {
	kind  int
	piece byte
}

const (
	filterAll      = iota // undefined: every move
	filterNoCastle        // '': no filter on pieces, but no castling
	filterType            // one piece type; castling only for 'k'
	filterNone            // any other string: no move at all
)

func (f pieceFilter) keeps(m *legalMove) bool {
	castle := m.flags&(flagCastleK|flagCastleQ) != 0
	switch f.kind {
	case filterAll:
		return true
	case filterNoCastle:
		return !castle
	case filterType:
		return m.piece == f.piece
	}
	return false
}

// inferPieceType is chess.js's inferPieceType(cleanMove): a first character
// a-h means a pawn, unless the string holds two squares (then every piece);
// otherwise the first character lower-cased names the piece, 'o' the king.
// JavaScript lower-cases one non-ASCII character to a piece letter: the
// Kelvin sign U+212A, to 'k'.
func inferPieceType(clean string) pieceFilter {
	if clean == "" {
		return pieceFilter{kind: filterNoCastle}
	}
	c := clean[0]
	if 'a' <= c && c <= 'h' {
		if hasTwoSquares(clean) {
			return pieceFilter{kind: filterAll}
		}
		return pieceFilter{kind: filterType, piece: 'p'}
	}
	if strings.HasPrefix(clean, "\u212a") {
		return pieceFilter{kind: filterType, piece: 'k'}
	}
	switch c = lower(c); c {
	case 'o':
		return pieceFilter{kind: filterType, piece: 'k'}
	case 'p', 'n', 'b', 'r', 'q', 'k':
		return pieceFilter{kind: filterType, piece: c}
	}
	return pieceFilter{kind: filterNone}
}

// hasTwoSquares is /[a-h]\d.*[a-h]\d/.test(s): JavaScript's '.' matches
// anything but the line terminators \n, \r, U+2028 and U+2029.
func hasTwoSquares(s string) bool {
	seen := false // a square has been seen since the last line terminator
	for i := 0; i+1 < len(s); i++ {
		switch {
		case s[i] == '\n' || s[i] == '\r':
			seen = false
		case strings.HasPrefix(s[i:], "\u2028") || strings.HasPrefix(s[i:], "\u2029"):
			seen = false
		case isFile(s[i]) && isDigit(s[i+1]):
			if seen {
				return true
			}
			seen = true
			i++
		}
	}
	return false
}

func isFile(c byte) bool  { return 'a' <= c && c <= 'h' }
func isRank(c byte) bool  { return '1' <= c && c <= '8' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func square(file, rank byte) int8 { return int8(rank-'1')*8 + int8(file-'a') }

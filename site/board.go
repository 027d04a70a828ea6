package site

import (
	"html/template"
	"strconv"
	"strings"

	"vesper/match/gomoku"
)

// Boards are drawn as inline SVG built here from numbers and fixed strings
// only: no text that came from a relay ever reaches them, which is why they
// may be handed to the templates as template.HTML. The shapes are defined
// once per page (chessDefs, gomokuDefs) and every board refers to them with
// <use>, so a replay of a hundred positions stays small.

// chessBoard is a position: pieces by square (0 = a1, 63 = h8) as FEN
// letters, 0 for empty, plus the last move and a king in check to mark.
type chessBoard struct {
	sq       [64]byte
	from, to int // -1 when there is no last move
	check    int // square of the king in check, -1 if none
}

// parseFEN reads the placement field of a FEN. It is only ever given
// chessjs output, but a malformed string still yields a board, not a panic.
func parseFEN(fen string) chessBoard {
	b := chessBoard{from: -1, to: -1, check: -1}
	placement, _, _ := strings.Cut(fen, " ")
	rank, file := 7, 0
	for i := 0; i < len(placement); i++ {
		c := placement[i]
		switch {
		case c == '/':
			rank, file = rank-1, 0
		case c >= '1' && c <= '8':
			file += int(c - '0')
		case strings.IndexByte("pnbrqkPNBRQK", c) >= 0:
			if rank >= 0 && rank < 8 && file >= 0 && file < 8 {
				b.sq[rank*8+file] = c
			}
			file++
		}
	}
	return b
}

// squareIndex reads "e4" as 28, or -1.
func squareIndex(s string) int {
	if len(s) != 2 || s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8' {
		return -1
	}
	return int(s[1]-'1')*8 + int(s[0]-'a')
}

// kingSquare finds the king of the side given by upper (White) or not.
func (b *chessBoard) kingSquare(white bool) int {
	want := byte('k')
	if white {
		want = 'K'
	}
	for i, c := range b.sq {
		if c == want {
			return i
		}
	}
	return -1
}

// chessDefs returns the board and the six piece shapes, drawn in a 100-unit
// box and scaled to one square, and a white and a black version of each
// ("wn", "bn"), so a board places a piece with one short <use>. A build
// computes it once.
func chessDefs() string {
	return `<svg class="defs" aria-hidden="true" width="0" height="0"><defs>` +
		`<g id="cb"><rect width="8" height="8" class="lt"/><path class="dk" d="` + darkSquares() + `"/>` + chessLabels() + `</g>` +
		`<g id="p"><g transform="scale(.01)"><circle cx="50" cy="32" r="13"/><path d="M35 78Q37 54 50 45Q63 54 65 78Z"/>` + pieceBase + `</g></g>` +
		`<g id="r"><g transform="scale(.01)"><path d="M27 18h11v8h7v-8h10v8h7v-8h11v20l-7 6v32h-32v-32l-7-6Z"/>` + pieceBase + `</g></g>` +
		`<g id="n"><g transform="scale(.01)"><path d="M33 80C32 66 44 60 47 52L35 56L25 47L43 23L47 12L55 22C71 28 77 52 71 80Z"/><circle cx="48" cy="32" r="3" class="eye"/>` + pieceBase + `</g></g>` +
		`<g id="b"><g transform="scale(.01)"><circle cx="50" cy="13" r="6"/><path d="M50 19C64 30 66 46 58 57L62 78H38L42 57C34 46 36 30 50 19Z"/><path d="M45 40L55 32" class="eye"/>` + pieceBase + `</g></g>` +
		`<g id="q"><g transform="scale(.01)"><path d="M27 78L19 31L36 50L41 22L50 46L59 22L64 50L81 31L73 78Z"/><circle cx="19" cy="28" r="5"/><circle cx="41" cy="19" r="5"/><circle cx="59" cy="19" r="5"/><circle cx="81" cy="28" r="5"/>` + pieceBase + `</g></g>` +
		`<g id="k"><g transform="scale(.01)"><path d="M46 12h8v10h10v8h-10v13h-8v-13h-10v-8h10Z"/><path d="M28 78C18 56 30 42 50 49C70 42 82 56 72 78Z"/>` + pieceBase + `</g></g>` +
		colourPieces() + `</defs></svg>`
}

func colourPieces() string {
	var b strings.Builder
	for _, c := range []string{"w", "b"} {
		for _, p := range "pnbrqk" {
			b.WriteString(`<g id="` + c + string(p) + `" class="p` + c + `"><use href="#` + string(p) + `"/></g>`)
		}
	}
	return b.String()
}

const pieceBase = `<rect x="22" y="79" width="56" height="11" rx="3"/>`

// darkSquares is the path of the 32 dark squares (a1 is dark; row 0 of the
// SVG is rank 8).
func darkSquares() string {
	var b strings.Builder
	for y := 0; y < 8; y++ {
		for x := 0; x < 8; x++ {
			if (x+y)%2 == 1 {
				b.WriteString("M" + strconv.Itoa(x) + " " + strconv.Itoa(y) + "h1v1h-1Z")
			}
		}
	}
	return b.String()
}

// chessLabels are the files along the bottom and the ranks up the left
// edge: one text element each, with a position per character (SVG's x and
// y lists), rather than an element per label on every chess page.
func chessLabels() string {
	var files, fileX, rankX, rankY []string
	for i := 0; i < 8; i++ {
		files = append(files, string(rune('a'+i)))
		fileX = append(fileX, strconv.Itoa(i)+".04")
		rankX = append(rankX, ".04")
		rankY = append(rankY, strconv.Itoa(7-i)+".24")
	}
	return `<text class="lb" x="` + strings.Join(fileX, " ") + `" y="7.96">` + strings.Join(files, "") + `</text>` +
		`<text class="lb" x="` + strings.Join(rankX, " ") + `" y="` + strings.Join(rankY, " ") + `">12345678</text>`
}

// markRects are the last move's two squares, placed by the shown ply's
// Marks (replay): drawn once, moved by CSS.
const markRects = `<g class="mk"><rect class="hl m1" width="1" height="1"/><rect class="hl m2" width="1" height="1"/></g>`

// chessReplaySVG draws the one board of a replay: boards[k] is the position
// after ply k. Every run of plies a piece stands on a square is one <use>,
// timed (see replay), so a game of n plies draws about 32+2n pieces rather
// than 32 per ply; a check is a timed square.
func chessReplaySVG(boards []chessBoard) (template.HTML, timing) {
	var tm timing
	var s strings.Builder
	s.Grow(2048 + 80*len(boards))
	s.WriteString(`<svg class="board bd" viewBox="0 0 8 8" role="img" aria-label="` + boardLabel + `"><use href="#cb"/>` + markRects)
	xy := func(sq int) string {
		return `x="` + string(rune('0'+sq%8)) + `" y="` + string(rune('0'+7-sq/8)) + `"`
	}
	for k, b := range boards {
		if b.check >= 0 && b.check < 64 {
			s.WriteString(`<g` + tm.class(k, k+1) + `><rect class="ck" ` + xy(b.check) + ` width="1" height="1"/></g>`)
		}
	}
	// A piece's run on a square: from ply from, the piece c.
	var since [64]int
	piece := func(sq int, c byte, a, end int) {
		side, p := byte('b'), c
		if c < 'a' {
			side, p = 'w', c+'a'-'A'
		}
		s.WriteString(`<use href="#` + string(side) + string(p) + `" ` + xy(sq) + tm.class(a, end) + `/>`)
	}
	last := len(boards) - 1
	for k := 1; k <= last; k++ {
		for sq := range 64 {
			was, is := boards[k-1].sq[sq], boards[k].sq[sq]
			if was == is {
				continue
			}
			if was != 0 {
				piece(sq, was, since[sq], k)
			}
			since[sq] = k
		}
	}
	if last >= 0 {
		for sq, c := range boards[last].sq {
			if c != 0 {
				piece(sq, c, since[sq], -1)
			}
		}
	}
	s.WriteString(`</svg>`)
	return template.HTML(s.String()), tm
}

// gomokuDefs returns the 15x15 grid (points at 1..15 in SVG units, row 15
// at the top) and the stone.
func gomokuDefs() string {
	var b strings.Builder
	b.WriteString(`<svg class="defs" aria-hidden="true" width="0" height="0"><defs><g id="gb"><rect width="16" height="16" class="wood"/><path class="grid" d="`)
	for i := 1; i <= gomoku.Size; i++ {
		n := strconv.Itoa(i)
		b.WriteString("M1 " + n + "H15M" + n + " 1V15")
	}
	b.WriteString(`"/>`)
	for _, p := range [][2]int{{4, 4}, {12, 4}, {8, 8}, {4, 12}, {12, 12}} {
		b.WriteString(`<circle class="star" cx="` + strconv.Itoa(p[0]) + `" cy="` + strconv.Itoa(p[1]) + `" r=".12"/>`)
	}
	// One text element for the files and one for the ranks 1 to 9, with a
	// position per character (each its own chunk, so each is centred);
	// the two-digit ranks one each, since a position list cannot skip a
	// character.
	var files, fileX, rankX, rankY []string
	for i := 0; i < gomoku.Size; i++ {
		files = append(files, string(rune('a'+i)))
		fileX = append(fileX, strconv.Itoa(i+1))
		if i < 9 {
			rankX = append(rankX, ".45")
			rankY = append(rankY, strconv.Itoa(gomoku.Size-i)+".1")
		}
	}
	b.WriteString(`<text class="glb" text-anchor="middle" x="` + strings.Join(fileX, " ") + `" y="15.8">` + strings.Join(files, "") + `</text>`)
	b.WriteString(`<text class="glb" text-anchor="middle" x="` + strings.Join(rankX, " ") + `" y="` + strings.Join(rankY, " ") + `">123456789</text>`)
	for i := 9; i < gomoku.Size; i++ {
		b.WriteString(`<text class="glb" text-anchor="middle" x=".45" y="` + strconv.Itoa(gomoku.Size-i) + `.1">` + strconv.Itoa(i+1) + `</text>`)
	}
	b.WriteString(`</g><circle id="bs" class="sk" r=".45"/><circle id="ws" class="sw" r=".45"/></defs></svg>`)
	return b.String()
}

// winLine finds the five (or more) in a row that the last stone of points
// made, as its two end points; ok is false when the last stone made none.
func winLine(points []gomoku.Point) (from, to gomoku.Point, ok bool) {
	if len(points) == 0 {
		return from, to, false
	}
	var board [gomoku.Size][gomoku.Size]int8 // 0 empty, 1 first player, 2 second
	for i, p := range points {
		if p.Col >= 0 && p.Col < gomoku.Size && p.Row >= 0 && p.Row < gomoku.Size {
			board[p.Col][p.Row] = int8(i%2 + 1)
		}
	}
	last := points[len(points)-1]
	stone := int8((len(points)-1)%2 + 1)
	at := func(c, r int) bool {
		return c >= 0 && c < gomoku.Size && r >= 0 && r < gomoku.Size && board[c][r] == stone
	}
	for _, d := range [4][2]int{{1, 0}, {0, 1}, {1, 1}, {1, -1}} {
		lo, hi := 0, 0
		for at(last.Col-(lo+1)*d[0], last.Row-(lo+1)*d[1]) {
			lo++
		}
		for at(last.Col+(hi+1)*d[0], last.Row+(hi+1)*d[1]) {
			hi++
		}
		if lo+hi+1 >= 5 {
			from = gomoku.Point{Col: last.Col - lo*d[0], Row: last.Row - lo*d[1]}
			to = gomoku.Point{Col: last.Col + hi*d[0], Row: last.Row + hi*d[1]}
			return from, to, true
		}
	}
	return from, to, false
}

// gomokuSVG draws the one board of a replay: stone i from ply i+1 on (the
// first player's black), the last move's ring placed by the shown ply's
// Marks, and, on the last position only, each stone's move number and the
// winning line (win, when set).
func gomokuSVG(points []gomoku.Point, win *[2]gomoku.Point) (template.HTML, timing) {
	var tm timing
	var s strings.Builder
	s.Grow(256 + len(points)*96)
	s.WriteString(`<svg class="board bd" viewBox="0 0 16 16" role="img" aria-label="` + boardLabel + `"><use href="#gb"/>`)
	n := len(points)
	for i, p := range points {
		x, y := strconv.Itoa(p.Col+1), strconv.Itoa(gomoku.Size-p.Row)
		stone := "bs"
		if i%2 == 1 {
			stone = "ws"
		}
		s.WriteString(`<use href="#` + stone + `" x="` + x + `" y="` + y + `"` + tm.class(i+1, -1) + `/>`)
	}
	s.WriteString(`<g class="mk"><circle class="last m1" r=".5"/></g>`)
	if n > 0 {
		// Numbering every position would double the board for little use.
		s.WriteString(`<g` + tm.class(n, -1) + `>`)
		for i, p := range points {
			num := "snk"
			if i%2 == 1 {
				num = "snw"
			}
			s.WriteString(`<text class="` + num + `" x="` + strconv.Itoa(p.Col+1) + `" y="` + strconv.Itoa(gomoku.Size-p.Row) + `.14">` + strconv.Itoa(i+1) + `</text>`)
		}
		if win != nil {
			a, z := win[0], win[1]
			s.WriteString(`<path class="win" d="M` + strconv.Itoa(a.Col+1) + " " + strconv.Itoa(gomoku.Size-a.Row) +
				"L" + strconv.Itoa(z.Col+1) + " " + strconv.Itoa(gomoku.Size-z.Row) + `"/>`)
		}
		s.WriteString(`</g>`)
	}
	s.WriteString(`</svg>`)
	return template.HTML(s.String()), tm
}

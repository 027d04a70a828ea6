package site

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"

	"vesper/analysis"
	"vesper/match/chessjs"
	"vesper/match/gomoku"
	"vesper/nostr"
	"vesper/site/opening"
)

// step is one position of the replay: Ply 0 is the start, Ply n the
// position after the n-th counted move.
type step struct {
	Ply   int
	Label string // "12... Nf6", "" for the start
	// FEN is the chess position in words for a screen reader (the board
	// is one picture for every position); "" for the other games.
	FEN string
	// Marks are the CSS custom properties that place this position's marks
	// on the board (the last move's squares or stone): numbers only.
	Marks string
}

// replay is a game replayed from State.Moves: the moves as people read them
// (SAN for chess, points for gomoku) and one board that shows every
// position.
//
// The board is drawn once (issue 37: a board per ply was half a game
// page's bytes). It holds every piece placement the game ever has, each
// with the plies it stands for as --a (first ply, 0 if omitted) and --b
// (first ply it is gone, never if omitted), given by its classes (timing);
// the page sets --k to the shown ply, one rule per ply keyed on the
// targeted step (highlightCSS), and the page's style sheet shows an
// element only when a <= k < b. The marks of the last move are placed by
// the ply's Marks. No script runs.
type replay struct {
	Defs  template.HTML
	Board template.HTML
	// timing holds the timing classes the board uses, and the move list's
	// (movesHTML); highlightCSS writes their rules.
	timing timing
	Moves  []string // SAN or point, one per counted move
	Steps  []step
	// Err is set when a stored move could not be replayed. It cannot happen
	// for states from match.Fold (moves are counted only when legal), but a
	// page must still come out if it does: the replay stops there.
	Err    string
	Gomoku bool // moves are numbered one by one (gomoku and Connect Four)
	// Kind is the game's kind, which words its grades (stepGrade).
	Kind string
	// EPDs are the chess positions after each move (opening.EPD), which
	// name the opening.
	EPDs []string
}

// timing gives a board element the plies it stands for as classes, "tA"
// (from ply A on; none: from the start) and "uB" (until ply B; none: to the
// end), and remembers which it used: css gives them their numbers as --a
// and --b. Classes, not style attributes: the pages carry none (TestLint).
type timing struct{ from, until []bool }

func (t *timing) class(a, b int) string {
	var c []string
	if a > 0 {
		t.from = setAt(t.from, a)
		c = append(c, "t"+strconv.Itoa(a))
	}
	if b >= 0 {
		t.until = setAt(t.until, b)
		c = append(c, "u"+strconv.Itoa(b))
	}
	if len(c) == 0 {
		return ""
	}
	return ` class="` + strings.Join(c, " ") + `"`
}

func setAt(s []bool, i int) []bool {
	for len(s) <= i {
		s = append(s, false)
	}
	s[i] = true
	return s
}

// css is the rules of the classes used, numbers only.
func (t *timing) css() string {
	var b strings.Builder
	for i, used := range t.from {
		if used {
			k := strconv.Itoa(i)
			b.WriteString(".t" + k + "{--a:" + k + "}")
		}
	}
	for i, used := range t.until {
		if used {
			k := strconv.Itoa(i)
			b.WriteString(".u" + k + "{--b:" + k + "}")
		}
	}
	return b.String()
}

// boardLabel names the one board for the whole replay: what it shows
// depends on the position targeted, which a fixed label cannot say, so it
// points to the step's heading (and, for chess, its FEN).
const boardLabel = "Board: the position named below it"

// moveLabel is "12. e4" or "12... e5" for ply n (1-based).
func moveLabel(n int, move string) string {
	num := strconv.Itoa((n + 1) / 2)
	if n%2 == 1 {
		return num + ". " + move
	}
	return num + "... " + move
}

// replays draw each game's boards, keyed by the game's token. A game the
// fold plays and this table lacks gets a page that says it has no board,
// never a chess board.
var replays = map[string]func(moves []string, defs *boardDefs) replay{
	nostr.GameChess:  func(moves []string, defs *boardDefs) replay { return replayChess(moves, defs.chess) },
	nostr.GameGomoku: func(moves []string, defs *boardDefs) replay { return replayGomoku(moves, defs.gomoku) },
	nostr.GameConnect4: func(moves []string, defs *boardDefs) replay {
		return replayConnect4(moves, defs.connect4)
	},
}

func replayGame(kind string, moves []string, defs *boardDefs) replay {
	draw, ok := replays[kind]
	if !ok {
		return replay{Moves: append([]string(nil), moves...), Err: fmt.Sprintf("no board for game %q", kind)}
	}
	r := draw(moves, defs)
	r.Kind = kind
	return r
}

func replayChess(moves []string, defs template.HTML) replay {
	r := replay{Defs: defs, Moves: make([]string, 0, len(moves)), Steps: make([]step, 0, len(moves)+1)}
	g := chessjs.NewGame()
	start := parseFEN(g.FEN())
	boards := []chessBoard{start}
	r.Steps = append(r.Steps, step{FEN: g.FEN(), Marks: noMarks})
	for i, mv := range moves {
		m, err := g.Move(mv)
		if err != nil {
			r.Err = fmt.Sprintf("ply %d could not be replayed", i+1)
			break
		}
		n := i + 1
		fen := g.FEN()
		r.EPDs = append(r.EPDs, opening.EPD(fen))
		b := parseFEN(fen)
		b.from, b.to = squareIndex(m.From), squareIndex(m.To)
		if strings.HasSuffix(m.SAN, "+") || strings.HasSuffix(m.SAN, "#") {
			b.check = b.kingSquare(n%2 == 0) // White is to move after an even ply
		}
		boards = append(boards, b)
		r.Moves = append(r.Moves, m.SAN)
		r.Steps = append(r.Steps, step{Ply: n, Label: moveLabel(n, m.SAN), FEN: fen, Marks: marks(b.from%8, 7-b.from/8, b.to%8, 7-b.to/8)})
	}
	r.Board, r.timing = chessReplaySVG(boards)
	return r
}

// noMarks hides the marks (the start, an empty board).
const noMarks = "--m:0"

// marks places the two marks at board coordinates (x1, y1) and (x2, y2).
func marks(x1, y1, x2, y2 int) string {
	return mark(x1, y1) + ";--q:" + strconv.Itoa(markAt(x2, y2))
}

// mark places the one mark (gomoku's stone, Connect Four's disc).
func mark(x, y int) string { return "--p:" + strconv.Itoa(markAt(x, y)) }

// markAt packs board coordinates, each under 16 on every board, into the
// one number game.css takes apart (x = p div 16, y = p mod 16): one
// property per mark rather than two, on every ply's rule (issue 37).
func markAt(x, y int) int { return x*16 + y }

func replayGomoku(moves []string, defs template.HTML) replay {
	r := replay{Defs: defs, Gomoku: true, Moves: make([]string, 0, len(moves)), Steps: make([]step, 0, len(moves)+1)}
	g := gomoku.NewGame()
	points := make([]gomoku.Point, 0, len(moves))
	for i, mv := range moves {
		norm, err := g.Move(mv)
		if err != nil {
			r.Err = fmt.Sprintf("ply %d could not be replayed", i+1)
			break
		}
		p, _ := gomoku.ParsePoint(norm)
		points = append(points, p)
		r.Moves = append(r.Moves, norm)
	}
	var win *[2]gomoku.Point
	if a, z, ok := winLine(points); ok {
		win = &[2]gomoku.Point{a, z}
	}
	r.Steps = append(r.Steps, step{Marks: noMarks})
	for n := 1; n <= len(points); n++ {
		p := points[n-1]
		x, y := p.Col+1, gomoku.Size-p.Row
		r.Steps = append(r.Steps, step{Ply: n, Label: gomokuLabel(n, r.Moves[n-1]), Marks: mark(x, y)})
	}
	r.Board, r.timing = gomokuSVG(points, win)
	return r
}

// gomokuLabel is "7. h8": gomoku counts moves one by one, not in pairs.
func gomokuLabel(n int, point string) string { return strconv.Itoa(n) + ". " + point }

// stepsHTML renders the replay: the board, the links to the start and
// the end, then one section per position, shown by CSS :target (the last
// one when none is targeted), with its heading (and, for chess, its FEN),
// the move's grade when the game is analysed (grades: one per move, or
// nil), links to the previous and next positions, and the move's talk. It
// is rendered here rather than in the template because a long game has
// hundreds of them; the only text is the move labels and the grades
// (stepGrade), escaped, and the talk (stepTalk, through html/template).
//
// A step carries only what changes from one position to the next (issue
// 37: the steps were a quarter of a game page): the start and the end are
// the same two links for every position, written once above them, and the
// sections are styled as the children of .steps rather than by a class.
func (r *replay) stepsHTML(grades []analysis.Move, talk map[int]*talkRow) template.HTML {
	last := strconv.Itoa(len(r.Steps) - 1)
	var b strings.Builder
	// A chess step is about 250 bytes without talk: sized once rather than
	// doubled through tens of kilobytes.
	b.Grow(len(r.Board) + len(r.Steps)*256)
	b.WriteString(string(r.Board))
	b.WriteString("\n")
	// Not a <nav>: a landmark per position would be hundreds on a page;
	// the replay's section is the one region. A game with no move has
	// nowhere to go.
	if len(r.Steps) > 1 {
		b.WriteString(`<p class="stepnav"><a href="#ply-0">« start</a><a href="#ply-` + last + `">end »</a></p>` + "\n")
	}
	for i, st := range r.Steps {
		n := strconv.Itoa(st.Ply)
		// The board comes first, as Lichess shows it (above the steps):
		// what the position is and the way to the next one follow it.
		b.WriteString(`<section id="ply-` + n + `">` + "\n")
		// h2: the position comes right under the page's h1.
		b.WriteString("<h2>")
		if st.Ply == 0 {
			b.WriteString("Start")
		} else {
			// The label names the move as its game counts it; the
			// position's place in the game ("ply 5 of 62", 25 bytes a
			// step) is the move list's highlight.
			b.WriteString("After " + template.HTMLEscapeString(st.Label))
		}
		b.WriteString("</h2>\n")
		if st.FEN != "" {
			// For a screen reader: the picture is the same element for
			// every position, so its label cannot name the pieces.
			b.WriteString(`<p class="fen">FEN: ` + template.HTMLEscapeString(st.FEN) + "</p>\n")
		}
		if st.Ply > 0 && st.Ply <= len(grades) {
			b.WriteString(stepGrade(&grades[st.Ply-1], r.Kind))
		}
		if len(r.Steps) > 1 {
			// The one paragraph of a step with links: styled as such
			// (game.css), without a class on every step.
			b.WriteString(`<p>`)
			if i > 0 {
				b.WriteString(`<a href="#ply-` + strconv.Itoa(st.Ply-1) + `">‹ previous</a>`)
			}
			if i < len(r.Steps)-1 {
				b.WriteString(`<a href="#ply-` + strconv.Itoa(st.Ply+1) + `">next ›</a>`)
			}
			b.WriteString("</p>\n")
		}
		// The move's talk after the way on: a long comment must not push
		// the links to the next position out of sight.
		if t := talk[st.Ply]; t != nil && st.Ply > 0 {
			b.WriteString(stepTalk(t))
		}
		b.WriteString("</section>\n")
	}
	return template.HTML(b.String())
}

// movesHTML is the move list, each move a link to its position with its
// grade's mark (tagMark) when the game is analysed, then the time it took
// (times: one per move, or nil), the two kept on one line. Chess is
// numbered by full move before White's moves, and the page sets it in
// rows as Lichess does (number, White, Black); gomoku numbers every move
// and flows.
func (r *replay) movesHTML(grades []analysis.Move, times []int64, talk map[int]*talkRow) template.HTML {
	var b strings.Builder
	for i, mv := range r.Moves {
		switch {
		case r.Gomoku: // the number stays on the move's line
			b.WriteString(`<span class="mc"><span class="mn">` + strconv.Itoa(i+1) + ".</span>")
		case i%2 == 0:
			b.WriteString(`<span class="mn">` + strconv.Itoa(i/2+1) + `.</span><span class="mc">`)
		default:
			b.WriteString(`<span class="mc">`)
		}
		// The link's timing class gives it its ply as --a: game.css
		// marks the move whose ply is the shown one (--k), with no rule
		// per move.
		b.WriteString(`<a` + r.timing.class(i+1, -1) + ` href="#ply-` + strconv.Itoa(i+1) + `">` + template.HTMLEscapeString(mv))
		if i < len(grades) {
			b.WriteString(tagMark(grades[i].Tag))
		}
		if t := talk[i+1]; t != nil && t.Fallback != "" {
			b.WriteString(`<span title="fallback: not the model's move">†</span>`)
		}
		b.WriteString("</a>")
		if i < len(times) {
			b.WriteString(`<small>` + spent(times[i]) + `</small>`)
		}
		b.WriteString("</span> ")
	}
	return template.HTML(b.String())
}

// highlightCSS sets the shown ply: --k and the marks of its last move on
// the replay (see replay), which also marks in the move list the move
// whose position the replay shows (game.css): the targeted one, or the
// last move when none is targeted. CSS cannot take the ply from the
// fragment, so there is one rule per ply; it is built from numbers only.
// It writes the rules of the timing classes used, so it comes after
// stepsHTML and movesHTML.
func (r *replay) highlightCSS() template.CSS {
	n := len(r.Steps) - 1
	if n < 0 {
		return ""
	}
	var b strings.Builder
	b.Grow(n * 64)
	b.WriteString(r.timing.css())
	// The default is the last position, as the steps show the last one
	// when none is targeted. The rules below match every ancestor of the
	// targeted step, .game among them, and outrank this one (an id in
	// :has()).
	b.WriteString(".game{--k:" + strconv.Itoa(n) + ";" + r.Steps[n].Marks + "}")
	for i, st := range r.Steps {
		k := strconv.Itoa(i)
		b.WriteString(":has(#ply-" + k + ":target){--k:" + k + ";" + st.Marks + "}")
	}
	return template.CSS(b.String())
}

// boardDefs are the shared SVG definitions, computed once per build.
type boardDefs struct {
	chess, gomoku, connect4 template.HTML
}

func newBoardDefs() *boardDefs {
	return &boardDefs{chess: template.HTML(chessDefs()), gomoku: template.HTML(gomokuDefs()), connect4: template.HTML(connect4Defs())}
}

package site

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"

	"vesper/match/connect4"
)

// connect4Defs returns the Connect Four frame (cells at 1..7 across and
// 1..6 down in SVG units, row 6 at the top, column letters below) and the
// two discs. Colours are attributes here, not classes of the layout's
// style sheet, so that adding the game left the other pages unchanged.
func connect4Defs() string {
	var b strings.Builder
	b.WriteString(`<svg class="defs" aria-hidden="true" width="0" height="0"><defs><g id="cb"><rect x=".5" y=".5" width="7" height="6" rx=".2" fill="#2a5db0"/>`)
	for c := 0; c < connect4.Cols; c++ {
		x := strconv.Itoa(c + 1)
		for r := 1; r <= connect4.Rows; r++ {
			b.WriteString(`<circle cx="` + x + `" cy="` + strconv.Itoa(r) + `" r=".4" fill="#f4f4f4"/>`)
		}
		b.WriteString(`<text class="glb" text-anchor="middle" x="` + x + `" y="7.2">` + connect4.ColumnName(c) + `</text>`)
	}
	b.WriteString(`</g><circle id="cr" r=".4" fill="#d62828" stroke="#7a1010" stroke-width=".04"/><circle id="cy" r=".4" fill="#f2c230" stroke="#8a6a00" stroke-width=".04"/></defs></svg>`)
	return b.String()
}

// replayConnect4 replays the columns: one board per ply, Red first.
func replayConnect4(moves []string, defs template.HTML) replay {
	// Moves are numbered one by one, as in gomoku.
	r := replay{Defs: defs, Gomoku: true, Moves: make([]string, 0, len(moves)), Steps: make([]step, 0, len(moves)+1)}
	g := connect4.NewGame()
	var cells [][2]int // column, row of each disc, in move order
	for i, mv := range moves {
		c, err := g.Parse(mv)
		if err != nil {
			r.Err = fmt.Sprintf("ply %d could not be replayed", i+1)
			break
		}
		cells = append(cells, [2]int{c, g.Height(c)})
		norm, _ := g.Move(mv)
		r.Moves = append(r.Moves, norm)
	}
	r.Steps = append(r.Steps, step{Marks: noMarks})
	for n := 1; n <= len(cells); n++ {
		x, y := cells[n-1][0]+1, connect4.Rows-cells[n-1][1]
		r.Steps = append(r.Steps, step{Ply: n, Label: gomokuLabel(n, r.Moves[n-1]), Marks: mark(x, y)})
	}
	r.Board, r.timing = connect4SVG(cells)
	return r
}

// connect4SVG draws the one board of a replay: disc i from ply i+1 on (see
// replay), the last disc ringed by the shown ply's Marks.
func connect4SVG(cells [][2]int) (template.HTML, timing) {
	var tm timing
	var s strings.Builder
	s.WriteString(`<svg class="board bd" viewBox="0 0 8 7.5" role="img" aria-label="` + boardLabel + `"><use href="#cb"/>`)
	for i, c := range cells {
		disc := "cr"
		if i%2 == 1 {
			disc = "cy"
		}
		x, y := strconv.Itoa(c[0]+1), strconv.Itoa(connect4.Rows-c[1])
		s.WriteString(`<use href="#` + disc + `" x="` + x + `" y="` + y + `"` + tm.class(i+1, -1) + `/>`)
	}
	s.WriteString(`<g class="mk"><circle class="m1" r=".46" fill="none" stroke="#111" stroke-width=".06"/></g>`)
	s.WriteString(`</svg>`)
	return template.HTML(s.String()), tm
}

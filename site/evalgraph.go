package site

import (
	"html/template"
	"math"
	"strconv"
	"strings"

	"vesper/analysis"
	"vesper/match"
)

// Evaluation graph geometry in SVG user units. It has the rating chart's
// width, so its 13-unit labels stay above 10 px on a phone.
const (
	egW, egH = 400, 170
	egL, egR = 50, 392
	egT, egB = 8, 132
)

// whiteWin is White's Win% after ply n of a graded game (n = 0: the start).
// It is the mover's Win% that analysis computed, turned to White's side by
// the ply's parity, so the site never re-derives Win% from centipawns (one
// formula, in analysis). A forced mate, and a checkmate on the board, is
// pinned to the graph's edge whatever Win% says, and anything outside
// 0-100 is clamped.
func whiteWin(moves []analysis.Move, n int) float64 {
	var w float64
	var e *analysis.Eval
	if n == 0 {
		w, e = moves[0].WinBefore, moves[0].Before // White moves at ply 1
	} else {
		m := moves[n-1]
		w, e = m.WinAfter, m.After
		if n%2 == 0 { // Black moved
			w = 100 - w
		}
	}
	// A checkmate on the board is CP ±MateCP (analysis.Eval.End).
	mated := e != nil && e.Mate == 0 && e.End == string(match.ReasonCheckmate)
	switch {
	case e != nil && (e.Mate > 0 || mated && e.CP > 0):
		return 100
	case e != nil && (e.Mate < 0 || mated && e.CP < 0):
		return 0
	}
	return math.Max(0, math.Min(100, w))
}

// egDot is the class of a graded move's dot: only the errors are marked.
var egDot = map[analysis.Tag]string{
	analysis.TagInaccuracy: "eg-i", analysis.TagMistake: "eg-m", analysis.TagBlunder: "eg-b",
}

// evalGraph draws White's winning chances over the game as inline SVG:
// the light area is White's share and the dark one Black's, the line is
// the evaluation after each ply, dots mark inaccuracies, mistakes and
// blunders, and the axis is numbered by move. Each ply is a link to its
// position in the replay (#ply-N), titled with its move and White's
// chances, so the graph navigates the game as Lichess's does; the move
// list beside the board is the same navigation with larger targets. The
// legend is HTML beside the graph. The title and description say the
// same in words for a screen reader. It is built from numbers, the
// replay's own move labels and the engine's name, the last two escaped.
// No script, nothing loaded.
func evalGraph(moves []analysis.Move, r *replay, engine string) template.HTML {
	n := len(moves)
	if n == 0 {
		return ""
	}
	x := func(i int) float64 { return egL + float64(i)*(egR-egL)/float64(n) }
	y := func(w float64) float64 { return egB - w*(egB-egT)/100 }
	num := num1
	pts := make([]string, 0, n+1)
	for i := 0; i <= n; i++ {
		pts = append(pts, num(x(i))+","+num(y(whiteWin(moves, i))))
	}

	var b strings.Builder
	b.WriteString(`<div class="eggrid"><svg class="evalgraph" viewBox="0 0 ` + strconv.Itoa(egW) + " " + strconv.Itoa(egH) +
		`" role="group" aria-labelledby="eg-title" aria-describedby="eg-desc">`)
	b.WriteString(`<title id="eg-title">Evaluation graph: White&#39;s winning chances after each ply</title>`)
	b.WriteString(`<desc id="eg-desc">` + template.HTMLEscapeString(evalDesc(moves, r, engine)) + `</desc>`)
	b.WriteString(`<rect class="eg-bk" x="` + strconv.Itoa(egL) + `" y="` + strconv.Itoa(egT) +
		`" width="` + strconv.Itoa(egR-egL) + `" height="` + strconv.Itoa(egB-egT) + `"/>`)
	b.WriteString(`<path class="eg-wh" d="M` + strconv.Itoa(egL) + " " + strconv.Itoa(egB) + "L" +
		strings.Join(pts, "L") + "L" + strconv.Itoa(egR) + " " + strconv.Itoa(egB) + `Z"/>`)
	b.WriteString(`<path class="eg-mid" d="M` + strconv.Itoa(egL) + " " + num(y(50)) + "H" + strconv.Itoa(egR) + `"/>`)
	b.WriteString(`<polyline class="eg-ln" points="` + strings.Join(pts, " ") + `"/>`)
	for i, m := range moves {
		if c := egDot[m.Tag]; c != "" {
			b.WriteString(`<circle class="` + c + `" cx="` + num(x(i+1)) + `" cy="` + num(y(whiteWin(moves, i+1))) + `" r="4"/>`)
		}
	}
	text := func(tx, ty float64, anchor, s string) {
		b.WriteString(`<text class="ax" x="` + num(tx) + `" y="` + num(ty) + `" text-anchor="` + anchor + `">` + s + `</text>`)
	}
	text(egL-5, egT+11, "end", "White")
	text(egL-5, egB, "end", "Black")
	text(egL-5, y(50)+4, "end", "50%")
	egMoveAxis(&b, n, x, text)
	egPlyLinks(&b, moves, r, x)
	b.WriteString(`</svg>`)
	b.WriteString(egLegend)
	b.WriteString(`</div>`)
	return template.HTML(b.String())
}

// egLegend is the graph's key, beside it.
const egLegend = `<ul class="eglegend"><li><span class="sw-w"></span>White&#39;s winning chances</li>` +
	`<li><span class="sw-k"></span>Black&#39;s</li><li><span class="sw-i"></span>inaccuracy</li>` +
	`<li><span class="sw-m"></span>mistake</li><li><span class="sw-b"></span>blunder</li>` +
	`<li class="mute">Pick a point to see its position.</li></ul>`

// egMoveAxis numbers the x-axis by full move (White's ply of each move),
// at a round step that leaves room for the labels, and names it.
func egMoveAxis(b *strings.Builder, n int, x func(int) float64, text func(tx, ty float64, anchor, s string)) {
	last := (n + 1) / 2 // the full move of the last ply
	step := int(niceStep(float64(last) / 6))
	step = max(step, 1)
	for mv := step; mv <= last; mv += step {
		px := x(2*mv - 1)
		b.WriteString(`<path class="eg-tk" d="M` + num1(px) + " " + strconv.Itoa(egB) + "v4" + `"/>`)
		text(px, egB+17, "middle", strconv.Itoa(mv))
	}
	text(egL, egH-4, "start", "move")
}

// egPlyLinks covers the plot with one link per position, ply 0 (the
// start) to n, each as wide as a ply and titled with its move and
// White's chances there.
func egPlyLinks(b *strings.Builder, moves []analysis.Move, r *replay, x func(int) float64) {
	n := len(moves)
	half := (x(1) - x(0)) / 2
	for i := 0; i <= n; i++ {
		lo, hi := math.Max(egL, x(i)-half), math.Min(egR, x(i)+half)
		label := "Start"
		if i > 0 {
			label = "Ply " + strconv.Itoa(i)
			if r != nil && i < len(r.Steps) {
				label = "After " + r.Steps[i].Label
			}
		}
		k := strconv.Itoa(i)
		b.WriteString(`<a href="#ply-` + k + `"><title>` + template.HTMLEscapeString(label) + ": White " +
			pctText(whiteWin(moves, i)) + `</title><rect x="` + num1(lo) + `" y="` + strconv.Itoa(egT) +
			`" width="` + num1(hi-lo) + `" height="` + strconv.Itoa(egB-egT) + `"/></a>`)
	}
}

// evalDesc is the graph's text for those who cannot see it: the chances at
// the start and the end, and the plies graded as errors, by their labels
// in r (nil: by ply number).
func evalDesc(moves []analysis.Move, r *replay, engine string) string {
	label := func(ply int) string {
		if r != nil && ply > 0 && ply < len(r.Steps) {
			return r.Steps[ply].Label
		}
		return "ply " + strconv.Itoa(ply)
	}
	errs := map[analysis.Tag][]string{}
	for i, m := range moves {
		if egDot[m.Tag] != "" {
			errs[m.Tag] = append(errs[m.Tag], label(i+1))
		}
	}
	n := len(moves)
	desc := "From " + engine + "'s evaluation, 0 to 100%, forced mates at the edge: " +
		pctText(whiteWin(moves, 0)) + " at the start, " + pctText(whiteWin(moves, n)) + " after ply " + strconv.Itoa(n) + "."
	for _, t := range []analysis.Tag{analysis.TagBlunder, analysis.TagMistake, analysis.TagInaccuracy} {
		if l := errs[t]; len(l) > 0 {
			desc += " " + tagWords[t] + ": " + strings.Join(l, ", ") + "."
		}
	}
	return desc
}

func pctText(w float64) string { return strconv.Itoa(int(math.Round(w))) + "%" }

package site

import (
	"html/template"
	"math"
	"strconv"
	"strings"

	"vesper/analysis"
	"vesper/match"
	"vesper/nostr"
)

// gradesView is the analysis part of a match page: one of Shown, Pending
// and Failed, or none of them (no analysis and none coming).
type gradesView struct {
	Shown, Pending, Failed bool
	Chess                  bool
	// Solved: the grades are an exact solver's against perfect play
	// (Connect Four), shown as the share of perfect moves.
	Solved          bool
	Engine, Version string
	Depth, HashMB   int
	Nodes           int64
	Href            string // analysis.json, from the match page
	Graph           template.HTML
	Rows            []gradeRow
	// The thresholds on the mover's Win% drop, as analysis defines them.
	Inaccuracy, Mistake, Blunder string
}

// gradeRow is one line of the per-player summary.
type gradeRow struct {
	Label, First, Second string
}

// tagWords are the tags as the summary counts them.
var tagWords = map[analysis.Tag]string{
	analysis.TagBest: "Best moves", analysis.TagGood: "Good moves", analysis.TagInaccuracy: "Inaccuracies",
	analysis.TagMistake: "Mistakes", analysis.TagBlunder: "Blunders", analysis.TagUnknown: "Not graded",
}

// gradesFor is the view of a match's analysis: g is the one to show (nil:
// none), c the match's card.
func (b *builder) gradesFor(c *card, g *analysis.Game, r *replay) gradesView {
	v := gradesView{Chess: c.Kind == nostr.GameChess, Solved: gradeWords[c.Kind].solved}
	if g == nil {
		v.Failed = cardClass(c) == gradesFailed
		v.Pending = b.gradesPending(c)
		return v
	}
	v.Shown = true
	v.Engine = cleanLine(g.Engine.Name, maxName*2)
	v.Version = cleanLine(g.Engine.Version, maxName*2)
	v.Depth, v.Nodes, v.HashMB = g.Engine.Depth, g.Engine.Nodes, g.Engine.HashMB
	v.Href = c.ID + ".analysis.json"
	v.Inaccuracy, v.Mistake, v.Blunder = drop(analysis.InaccuracyDrop), drop(analysis.MistakeDrop), drop(analysis.BlunderDrop)
	p1, p2 := g.Players[0], g.Players[1]
	row := func(label string, f func(analysis.Player) string) {
		v.Rows = append(v.Rows, gradeRow{Label: label, First: f(p1), Second: f(p2)})
	}
	if v.Chess {
		v.Graph = evalGraph(g.Moves, r, v.Engine)
		row("Accuracy", func(p analysis.Player) string { return oneDecimal(p.Accuracy) + "%" })
		row("Average centipawn loss", func(p analysis.Player) string { return strconv.Itoa(round(p.ACPL)) })
	}
	row("Moves", func(p analysis.Player) string { return strconv.Itoa(p.Moves) })
	if v.Solved {
		// The solver's grades are perfect play or not: the share of
		// perfect moves is the figure, beside the blunders and the moves
		// it could not prove.
		row("Perfect moves", func(p analysis.Player) string {
			return strconv.Itoa(p.Counts[analysis.TagBest]) + " (" + percent(p.Counts[analysis.TagBest], p.Moves) + ")"
		})
	}
	for _, tag := range analysis.Tags {
		// Chess shows every grade, including the zeros; gomoku and
		// Connect Four are graded only where it is exact, so they show
		// the tags that occur, and always the blunders (and for Connect
		// Four the moves not graded: the solver's budget is part of the
		// figure).
		if v.Solved && tag == analysis.TagBest {
			continue
		}
		always := tag == analysis.TagBlunder || (v.Chess && tag != analysis.TagUnknown) || (v.Solved && tag == analysis.TagUnknown)
		if always || p1.Counts[tag]+p2.Counts[tag] > 0 {
			row(tagWords[tag], func(p analysis.Player) string { return strconv.Itoa(p.Counts[tag]) })
		}
	}
	return v
}

// percent is n of total as a whole percentage, "0%" of none.
func percent(n, total int) string {
	if total <= 0 {
		return "0%"
	}
	return strconv.Itoa(int(math.Round(100*float64(n)/float64(total)))) + "%"
}

// gradeWords are, by game kind, what a move's Best is, what a blunder and
// a mistake are where the tag alone does not say, and whether an exact
// solver graded the game. An entry is optional: a game without one says
// "best was" and shows its grades as gomoku's.
var gradeWords = map[string]struct {
	best, blunder, mistake string
	solved                 bool
}{
	nostr.GameChess:  {best: "best was"},
	nostr.GameGomoku: {best: "the point to play was", blunder: "a missed five, or a move that allows a forced win"},
	nostr.GameConnect4: {best: "the column to play was", solved: true,
		blunder: "a won or drawn position turned into a lost one, or a four allowed", mistake: "a win turned into a draw"},
}

// drop writes a threshold: "5", or "7.5".
func drop(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func oneDecimal(f float64) string { return strconv.FormatFloat(math.Round(f*10)/10, 'f', 1, 64) }

// tagMarks are the move list's marks: the chess annotation symbols for
// the three errors, a star for the engine's best move. A good move and an
// ungraded one stay unmarked (the legend says so); each replay position
// names its tag in words.
var tagMarks = map[analysis.Tag]string{
	analysis.TagBest: "★", analysis.TagInaccuracy: "?!", analysis.TagMistake: "?", analysis.TagBlunder: "??",
}

// tagNames are the tags as the replay names them.
var tagNames = map[analysis.Tag]string{
	analysis.TagBest: "best move", analysis.TagGood: "good", analysis.TagInaccuracy: "inaccuracy",
	analysis.TagMistake: "mistake", analysis.TagBlunder: "blunder", analysis.TagUnknown: "not graded",
}

// tagMark is a move's mark in the move list, "" for none. Tags are
// checked against analysis.Tags before a game's grades are shown, so the
// class is one of six fixed words.
func tagMark(t analysis.Tag) string {
	m, ok := tagMarks[t]
	if !ok {
		return ""
	}
	return `<abbr class="gm g-` + string(t) + `" title="` + tagNames[t] + `">` + m + `</abbr>`
}

// marksLegend explains the marks of the tags that occur in the game, and
// which tags the unmarked moves have.
func marksLegend(grades []analysis.Move, kind string) template.HTML {
	seen := map[analysis.Tag]bool{}
	for _, m := range grades {
		seen[m.Tag] = true
	}
	var parts, unmarked []string
	for _, t := range analysis.Tags {
		if !seen[t] {
			continue
		}
		name := tagNames[t]
		if m, ok := tagMarks[t]; ok {
			// The mark stays on the line of its name's first word.
			first, rest, _ := strings.Cut(name, " ")
			part := `<span class="nw"><span class="gm g-` + string(t) + `">` + m + "</span> " + first + "</span>"
			if rest != "" {
				part += " " + rest
			}
			if w := gradeWords[kind].blunder; t == analysis.TagBlunder && w != "" {
				part += " (" + w + ")"
			}
			if w := gradeWords[kind].mistake; t == analysis.TagMistake && w != "" {
				part += " (" + w + ")"
			}
			parts = append(parts, part)
		} else {
			unmarked = append(unmarked, name)
		}
	}
	if len(unmarked) > 0 {
		parts = append(parts, "unmarked: "+strings.Join(unmarked, " or "))
	}
	return template.HTML(strings.Join(parts, " · "))
}

// stepGrade is the line under a replay position's heading: the move's tag
// in words, the engine's choice where the move was not it, and for chess
// the evaluation before and after it and the centipawns it lost. Best is
// the engine's text, escaped and cut like any other outside string.
func stepGrade(m *analysis.Move, kind string) string {
	gomoku := kind != nostr.GameChess
	var b strings.Builder
	b.WriteString(`<p class="grade"><span class="tag g-` + string(m.Tag) + `">` + tagNames[m.Tag] + "</span>")
	best := template.HTMLEscapeString(cleanLine(m.Best, 16)) // SAN or a point: short, so it may stay on one line
	if best != "" && m.Tag != analysis.TagBest && m.Best != m.Move {
		words := gradeWords[kind].best
		if words == "" {
			words = "best was"
		}
		b.WriteString(` · <span class="nw">` + words + " " + best + "</span>")
	}
	switch m.Value {
	case "win", "draw", "loss":
		// The solver's value of the position before, for the mover.
		b.WriteString(` · <span class="nw">a ` + m.Value + " before it with perfect play</span>")
	}
	if !gomoku {
		switch {
		case m.Before != nil && m.After != nil:
			b.WriteString(` · <span class="nw">evaluation ` + evalText(m.Before) + " → " + evalText(m.After) + "</span>")
		case m.Before != nil:
			b.WriteString(` · <span class="nw">evaluation before ` + evalText(m.Before) + "</span>")
		}
		if m.Loss > 0 {
			b.WriteString(` · <span class="nw">loss ` + strconv.Itoa(m.Loss) + " cp</span>")
		}
	}
	b.WriteString("</p>\n")
	return b.String()
}

// evalText writes an evaluation from White's side as chess readers know
// it: "+0.35" pawns, "#3" / "#−3" for a forced mate by White / Black, or
// how the game ended there ("checkmate"), as HTML.
func evalText(e *analysis.Eval) string {
	if e.End != "" {
		return template.HTMLEscapeString(reasonText(match.Reason(e.End)))
	}
	if e.Mate != 0 {
		if e.Mate < 0 {
			return "#−" + strconv.Itoa(-e.Mate)
		}
		return "#" + strconv.Itoa(e.Mate)
	}
	s := strconv.FormatFloat(math.Abs(float64(e.CP))/100, 'f', 2, 64)
	switch {
	case e.CP > 0:
		return "+" + s
	case e.CP < 0:
		return "−" + s
	}
	return s
}

package site

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"strconv"

	"vesper/analysis"
	"vesper/nostr"
)

// A match's analysis (Input.Analyses) is shown only when it is done and
// fits the game: same match, kind and players, one graded move per counted
// ply in order, known tags, figures in range, per-player counts that add
// up. Anything else is treated as failed: a wrong grade on a page is worse
// than none (issue 18). The check reads only what a card holds, so the
// card of every match says what its page shows, and Update can tell which
// cards are out of date without folding anything.

// What a card's Analysis field holds besides a digest.
const (
	gradesNone   = ""       // no analysis (yet)
	gradesFailed = "failed" // failed
	// gradesMisfit is a done analysis that does not fit the game: shown as
	// failed, but kept apart so that Update, comparing a card with the
	// analysis's status alone (Input.AnalysisStatus), does not take the
	// card for out of date at every build.
	gradesMisfit = "misfit"
)

// analysisPath is the analysis.json of a match, beside its match.json.
func analysisPath(id string) string { return "m/" + id + ".analysis.json" }

// gradeClass says what an analysis would show for a card: gradesNone,
// gradesFailed, or "done". It is cheap (no marshalling), for the check
// Update makes on every card it carries over.
func gradeClass(c *card, g *analysis.Game) string {
	switch {
	case g == nil:
		return gradesNone
	case g.Status == analysis.StatusFailed:
		return gradesFailed
	case g.Status != analysis.StatusDone:
		return gradesNone // a status this build does not know: still to come
	case !fits(c, g):
		return gradesFailed
	}
	return "done"
}

// cardClass is gradeClass of what a card recorded.
func cardClass(c *card) string {
	if r := cardRecord(c); r != gradesMisfit {
		return r
	}
	return gradesFailed
}

// gradeRecord is what setGrades records on a card for an analysis, with
// "done" in place of a digest: gradeClass, but for gradesMisfit.
func gradeRecord(c *card, g *analysis.Game) string {
	r := gradeClass(c, g)
	if r == gradesFailed && g.Status == analysis.StatusDone {
		return gradesMisfit
	}
	return r
}

// cardRecord is gradeRecord of what a card recorded.
func cardRecord(c *card) string {
	switch c.Analysis {
	case gradesNone, gradesFailed, gradesMisfit:
		return c.Analysis
	}
	return "done"
}

// gradesPending reports whether a match's page says it is being analysed:
// the caller analyses finished games, this one is final, has moves to
// grade, and has no analysis yet.
func (b *builder) gradesPending(c *card) bool {
	return b.in.Analysing && c.Final && c.Plies > 0 && c.Analysis == gradesNone
}

func fits(c *card, g *analysis.Game) bool {
	if g.Format != analysis.FormatVersion || g.Match != c.ID || g.Game != c.Kind || !c.Over ||
		len(g.Moves) != c.Plies || len(g.Players) != 2 ||
		g.Players[0].Pubkey != c.First || g.Players[1].Pubkey != c.Second {
		return false
	}
	for i, m := range g.Moves {
		if m.Ply != i+1 || !knownTag(m.Tag) || m.Loss < 0 ||
			!pct100(m.WinBefore) || !pct100(m.WinAfter) || !pct100(m.Accuracy) {
			return false
		}
	}
	total := 0
	for _, p := range g.Players {
		if p.Moves < 0 || !pct100(p.Accuracy) || !finite(p.ACPL) || p.ACPL < 0 {
			return false
		}
		n := 0
		for tag, k := range p.Counts {
			if !knownTag(tag) || k < 0 {
				return false
			}
			n += k
		}
		if n != p.Moves {
			return false
		}
		total += p.Moves
	}
	return total == c.Plies
}

func knownTag(t analysis.Tag) bool {
	for _, k := range analysis.Tags {
		if t == k {
			return true
		}
	}
	return false
}

func pct100(f float64) bool { return finite(f) && f >= 0 && f <= 100 }

// grade is what a player page needs of one player's part of an analysed
// game: the card keeps it so that player pages are rendered from cards.
// Accuracy is rounded as analysis.json shows it (chess only).
type grade struct {
	Accuracy float64 `json:"a,omitempty"`
	ACPL     float64 `json:"cp,omitempty"` // chess: average centipawn loss (the ladder of models)
	Moves    int     `json:"m"`
	Blunders int     `json:"b,omitempty"`
	// Perfect counts the moves an exact solver graded best (Connect
	// Four: perfect play), for the player page's share.
	Perfect int `json:"p,omitempty"`
}

// setGrades records on a card what its analysis shows: Analysis (the
// digest of analysis.json, so that the match key changes with any byte of
// it, or why there are no grades) and the two players' figures.
func setGrades(c *card, g *analysis.Game) {
	c.Analysis, c.Grades = gradeRecord(c, g), nil
	if c.Analysis != "done" {
		return
	}
	c.Analysis = gradesDigest(analysisJSON(g))
	for _, p := range g.Players {
		gr := grade{Moves: p.Moves, Blunders: p.Counts[analysis.TagBlunder]}
		if c.Kind == nostr.GameChess {
			gr.Accuracy, gr.ACPL = round2(p.Accuracy), round2(p.ACPL)
		}
		if gradeWords[c.Kind].solved {
			gr.Perfect = p.Counts[analysis.TagBest]
		}
		c.Grades = append(c.Grades, gr)
	}
}

func gradesDigest(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// round2 is the fixed rounding of analysis.json's figures: two decimals,
// so the same analysis always gives the same bytes.
func round2(f float64) float64 {
	r := math.Round(f*100) / 100
	if r == 0 {
		return 0 // never "-0"
	}
	return r
}

// analysisJSON writes analysis.json: analysis.Game's fields in its order,
// with its JSON names and omitempty rules (TestAnalysisJSONHasEveryField
// fails when analysis.Game gains a field this does not write), figures rounded to two decimals, tag counts in
// analysis.Tags order, one move per line. It is written here rather than
// by encoding/json so that the bytes are fixed by this code alone (the
// digest on the card depends on them). Strings are JSON-escaped with HTML
// characters as \u escapes, so the file is inert even if a browser sniffs
// it as HTML.
func analysisJSON(g *analysis.Game) []byte {
	b := make([]byte, 0, 256+180*len(g.Moves))
	b = append(b, `{"format":`...)
	b = strconv.AppendInt(b, int64(g.Format), 10)
	b = appendField(b, "match", g.Match)
	b = appendField(b, "game", g.Game)
	b = appendField(b, "status", string(g.Status))
	if g.Error != "" {
		b = appendField(b, "error", g.Error)
	}
	b = appendEngine(b, &g.Engine)
	if f := g.Formula; f != nil || (g.Game == nostr.GameChess && g.Status == analysis.StatusDone) {
		if f == nil {
			// Stored before analysis.json carried its formula: the
			// constants have been lila's, the same, since the first.
			f = &analysis.ChessFormula
		}
		b = appendFormula(b, f)
	}
	b = append(b, ",\n\"moves\":["...)
	for i := range g.Moves {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '\n')
		b = appendMove(b, &g.Moves[i])
	}
	b = append(b, "],\n\"players\":["...)
	for i := range g.Players {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '\n')
		b = appendPlayer(b, &g.Players[i])
	}
	return append(b, "]}\n"...)
}

// appendEngine writes `,"engine":{...}`, its limits only where set.
func appendEngine(b []byte, e *analysis.Engine) []byte {
	b = append(b, `,"engine":{"name":`...)
	b = appendString(b, e.Name)
	b = appendField(b, "version", e.Version)
	if e.Depth != 0 {
		b = appendInt(b, "depth", int64(e.Depth))
	}
	if e.Nodes != 0 {
		b = appendInt(b, "nodes", e.Nodes)
	}
	if e.HashMB != 0 {
		b = appendInt(b, "hash_mb", int64(e.HashMB))
	}
	return append(b, '}')
}

// appendFormula writes `,"formula":{...}`, each constant at full
// precision (a reader recomputes with them).
func appendFormula(b []byte, f *analysis.Formula) []byte {
	b = append(b, `,"formula":{"mate_cp":`...)
	b = strconv.AppendInt(b, int64(f.MateCP), 10)
	for _, c := range []struct {
		name string
		v    float64
	}{{"win_k", f.WinK}, {"accuracy_a", f.AccuracyA}, {"accuracy_b", f.AccuracyB}, {"accuracy_c", f.AccuracyC},
		{"accuracy_bonus", f.AccuracyBonus}, {"window_divisor", float64(f.WindowDivisor)}, {"window_min", float64(f.WindowMin)},
		{"window_max", float64(f.WindowMax)}, {"weight_min", f.WeightMin}, {"weight_max", f.WeightMax},
		{"inaccuracy", f.Inaccuracy}, {"mistake", f.Mistake}, {"blunder", f.Blunder}} {
		b = append(b, ',')
		b = appendString(b, c.name)
		b = append(b, ':')
		if !finite(c.v) {
			c.v = 0
		}
		b = strconv.AppendFloat(b, c.v, 'f', -1, 64)
	}
	return append(b, '}')
}

// appendPlayer writes one player's summary, its counts in analysis.Tags
// order.
func appendPlayer(b []byte, p *analysis.Player) []byte {
	b = append(b, `{"pubkey":`...)
	b = appendString(b, p.Pubkey)
	b = appendField(b, "side", p.Side)
	b = appendInt(b, "moves", int64(p.Moves))
	b = appendNum(b, "accuracy", p.Accuracy)
	b = appendNum(b, "acpl", p.ACPL)
	b = append(b, `,"counts":{`...)
	first := true
	for _, tag := range analysis.Tags {
		if n, ok := p.Counts[tag]; ok {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendString(b, string(tag))
			b = append(b, ':')
			b = strconv.AppendInt(b, int64(n), 10)
		}
	}
	return append(b, "}}"...)
}

// appendInt writes `,"name":n`.
func appendInt(b []byte, name string, n int64) []byte {
	b = append(b, ',')
	b = appendString(b, name)
	b = append(b, ':')
	return strconv.AppendInt(b, n, 10)
}

// appendStringOrNull writes `,"name":"value"`, or `,"name":null` for "".
func appendStringOrNull(b []byte, name, value string) []byte {
	if value == "" {
		b = append(b, ',')
		b = appendString(b, name)
		return append(b, ":null"...)
	}
	return appendField(b, name, value)
}

func appendMove(b []byte, m *analysis.Move) []byte {
	b = append(b, `{"ply":`...)
	b = strconv.AppendInt(b, int64(m.Ply), 10)
	b = appendField(b, "move", m.Move)
	b = appendField(b, "side", m.Side)
	if m.Best != "" {
		b = appendField(b, "best", m.Best)
	}
	if m.Value != "" {
		b = appendField(b, "value", m.Value)
	}
	b = appendEval(b, "before", m.Before)
	b = appendEval(b, "after", m.After)
	b = append(b, `,"cp_loss":`...)
	b = strconv.AppendInt(b, int64(m.Loss), 10)
	b = appendNum(b, "win_before", m.WinBefore)
	b = appendNum(b, "win_after", m.WinAfter)
	b = appendNum(b, "accuracy", m.Accuracy)
	b = appendField(b, "tag", string(m.Tag))
	return append(b, '}')
}

func appendEval(b []byte, name string, e *analysis.Eval) []byte {
	if e == nil {
		return b
	}
	b = append(b, ',')
	b = appendString(b, name)
	b = append(b, `:{"cp":`...)
	b = strconv.AppendInt(b, int64(e.CP), 10)
	if e.Mate != 0 {
		b = append(b, `,"mate":`...)
		b = strconv.AppendInt(b, int64(e.Mate), 10)
	}
	if e.End != "" {
		b = appendField(b, "end", e.End)
	}
	return append(b, '}')
}

// appendField writes `,"name":"value"`.
func appendField(b []byte, name, value string) []byte {
	b = append(b, ',')
	b = appendString(b, name)
	b = append(b, ':')
	return appendString(b, value)
}

// appendNum writes `,"name":f` rounded by round2; a figure JSON cannot
// hold (NaN, infinities: never in a shown analysis) is written as 0.
func appendNum(b []byte, name string, f float64) []byte {
	b = append(b, ',')
	b = appendString(b, name)
	b = append(b, ':')
	if !finite(f) {
		f = 0
	}
	return strconv.AppendFloat(b, round2(f), 'f', -1, 64)
}

// appendString is encoding/json's string encoding: valid UTF-8 (bad bytes
// become U+FFFD) and <, >, & escaped.
func appendString(b []byte, s string) []byte {
	// Moves, tags and keys are plain ASCII: written as they are, they skip
	// encoding/json's reflection, most of this file's cost.
	plain := true
	for i := 0; i < len(s) && plain; i++ {
		c := s[i]
		plain = c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	if plain {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	raw, _ := json.Marshal(s) // a string always marshals
	return append(b, raw...)
}

package site

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"vesper/analysis"
)

// cloneGame deep-copies an analysis, so a test case can spoil it.
func cloneGame(t *testing.T, g *analysis.Game) *analysis.Game {
	t.Helper()
	raw, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	var c analysis.Game
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	return &c
}

// TestAnalysisJSON: analysis.json is the same bytes for the same analysis
// (fixed rounding, fixed order whatever the map's), it reads back into
// analysis.Game, and reading and writing it again changes nothing.
func TestAnalysisJSON(t *testing.T) {
	f := newFixture(t)
	for _, name := range []string{"mate", "five"} {
		t.Run(name, func(t *testing.T) {
			g := f.in.Analyses[f.ids[name]]
			a, b := analysisJSON(g), analysisJSON(g)
			if !bytes.Equal(a, b) {
				t.Fatal("two marshals differ")
			}
			var back analysis.Game
			if err := json.Unmarshal(a, &back); err != nil {
				t.Fatalf("analysis.json does not parse: %v\n%s", err, a)
			}
			if again := analysisJSON(&back); !bytes.Equal(again, a) {
				t.Errorf("read back and written again:\n%s\nwant\n%s", again, a)
			}
			if back.Engine != g.Engine || len(back.Moves) != len(g.Moves) || back.Players[1].Counts[analysis.TagBest] != g.Players[1].Counts[analysis.TagBest] {
				t.Errorf("read back %+v", back)
			}
		})
	}
	g := cloneGame(t, f.in.Analyses[f.ids["mate"]])
	g.Moves[0].WinBefore = 52.304999
	g.Players[0].Accuracy = 43.6049
	g.Players[0].Counts = map[analysis.Tag]int{analysis.TagBlunder: 1, analysis.TagInaccuracy: 1}
	out := string(analysisJSON(g))
	for _, want := range []string{`"win_before":52.3,`, `"accuracy":43.6,`, `"counts":{"inaccuracy":1,"blunder":1}`} {
		if !strings.Contains(out, want) {
			t.Errorf("analysis.json lacks %s:\n%s", want, out)
		}
	}
	g.Moves[0].Best = `</script><b>&"`
	if out := string(analysisJSON(g)); !strings.Contains(out, `"best":"\u003c/script\u003e\u003cb\u003e\u0026\""`) {
		t.Errorf("HTML characters not escaped:\n%s", out)
	}
}

// TestAnalysisJSONHasEveryField: analysisJSON is written by hand, so this
// fills every field of analysis.Game (reflection: a field added there later
// is filled too) and checks that analysisJSON says what encoding/json says.
func TestAnalysisJSONHasEveryField(t *testing.T) {
	var g analysis.Game
	fill(reflect.ValueOf(&g).Elem())
	for i := range g.Players {
		g.Players[i].Counts = map[analysis.Tag]int{analysis.TagBest: 1} // only known tags are written
	}
	var got, want any
	if err := json.Unmarshal(analysisJSON(&g), &got); err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(&g)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("analysisJSON and encoding/json differ:\n got %v\nwant %v", got, want)
	}
	if evalText(&analysis.Eval{CP: -analysis.MateCP, End: "checkmate"}) != "checkmate" || evalText(mate(-3)) != "#−3" || evalText(cp(7)) != "+0.07" {
		t.Error("evalText")
	}
}

// fill sets every exported field under v to a value that no omitempty
// leaves out.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0))
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k)
		fill(e)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.String:
		v.SetString("x")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(3)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(3)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1.25)
	case reflect.Bool:
		v.SetBool(true)
	}
}

// TestAnalysisFits: only a done analysis that fits its game is shown; a
// failed one, or one that does not fit, shows none and says it failed; an
// unknown status is treated as still to come.
func TestAnalysisFits(t *testing.T) {
	f := newFixture(t)
	s := foldT(t, f.games["mate"])
	good := f.in.Analyses[s.Match]
	cases := []struct {
		name  string
		spoil func(g *analysis.Game)
		want  string
	}{
		{"as made", func(g *analysis.Game) {}, "done"},
		{"failed", func(g *analysis.Game) { g.Status = analysis.StatusFailed }, gradesFailed},
		{"running", func(g *analysis.Game) { g.Status = "running" }, gradesNone},
		{"another format", func(g *analysis.Game) { g.Format++ }, gradesFailed},
		{"another match", func(g *analysis.Game) { g.Match = f.ids["five"] }, gradesFailed},
		{"another game kind", func(g *analysis.Game) { g.Game = "gomoku" }, gradesFailed},
		{"a move short", func(g *analysis.Game) { g.Moves = g.Moves[:3] }, gradesFailed},
		{"plies out of order", func(g *analysis.Game) { g.Moves[1].Ply, g.Moves[2].Ply = 3, 2 }, gradesFailed},
		{"unknown tag", func(g *analysis.Game) { g.Moves[0].Tag = "brilliant" }, gradesFailed},
		{"NaN accuracy", func(g *analysis.Game) { g.Moves[0].Accuracy = math.NaN() }, gradesFailed},
		{"Win% over 100", func(g *analysis.Game) { g.Moves[2].WinBefore = 101 }, gradesFailed},
		{"negative loss", func(g *analysis.Game) { g.Moves[2].Loss = -1 }, gradesFailed},
		{"players swapped", func(g *analysis.Game) { g.Players[0], g.Players[1] = g.Players[1], g.Players[0] }, gradesFailed},
		{"one player", func(g *analysis.Game) { g.Players = g.Players[:1] }, gradesFailed},
		{"counts do not add up", func(g *analysis.Game) { g.Players[0].Counts[analysis.TagGood]++ }, gradesFailed},
		{"infinite ACPL", func(g *analysis.Game) { g.Players[1].ACPL = math.Inf(1) }, gradesFailed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := cloneGame(t, good)
			c.spoil(g)
			card := newCard(s, f.in.SeenAt, g)
			if got := cardClass(card); got != c.want {
				t.Errorf("class %q, want %q", got, c.want)
			}
			if (card.Grades != nil) != (c.want == "done") {
				t.Errorf("grades %v with class %q", card.Grades, c.want)
			}
		})
	}
	active := foldT(t, f.games["active"])
	// A done analysis that does not fit is shown as failed, and recorded
	// as a misfit so that its status (done) agrees with the card.
	if c := newCard(active, f.in.SeenAt, testAnalysis(active, cp(0), make([]testPly, active.Plies()))); cardClass(c) != gradesFailed || c.Analysis != gradesMisfit {
		t.Errorf("a game in progress shows its analysis (%q)", c.Analysis)
	}
	if c := newCard(s, f.in.SeenAt, nil); c.Analysis != gradesNone || c.Grades != nil {
		t.Errorf("no analysis: card %q %v", c.Analysis, c.Grades)
	}
}

// TestAnalysisPages is issue 18 on the pages: the graph, the tags, the
// summary, the thresholds and the engine on an analysed chess game; tags
// but no graph and no centipawns on gomoku; "being analysed" and "failed"
// in words with no grade; the player page's mean accuracy and blunders
// per 100 moves; analysis.json beside match.json and in matches.json.
func TestAnalysisPages(t *testing.T) {
	f := newFixture(t)
	out, _ := buildFixture(t, f.in)
	page := func(name string) string { return readPage(t, out, "m/"+f.ids[name]+".html") }
	has := func(t *testing.T, what, page string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(page, w) {
				t.Errorf("%s lacks %s", what, w)
			}
		}
	}
	lacks := func(t *testing.T, what, page string, bad ...string) {
		t.Helper()
		for _, b := range bad {
			if strings.Contains(page, b) {
				t.Errorf("%s has %s", what, b)
			}
		}
	}
	t.Run("chess", func(t *testing.T) {
		mate := page("mate")
		has(t, "the mate page", mate,
			`<svg class="evalgraph"`, `role="group" aria-labelledby="eg-title" aria-describedby="eg-desc"`, `<a href="#ply-4"><title>After 2... Qh4#: White 0%</title>`,
			`<desc id="eg-desc">From Stockfish 17&#39;s evaluation`, "Blunders: 2. g4.",
			`g4<abbr class="gm g-blunder" title="blunder">??</abbr>`,
			`<p class="grade"><span class="tag g-blunder">blunder</span> · <span class="nw">best was Nc3</span> · <span class="nw">evaluation −0.45 → #−1</span>`,
			`<tr><th scope="row">Accuracy</th><td class="n">43.6%</td><td class="n">100.0%</td></tr>`,
			`<tr><th scope="row">Average centipawn loss</th><td class="n">510</td><td class="n">0</td></tr>`,
			`<tr><th scope="row">Blunders</th><td class="n">1</td><td class="n">0</td></tr>`,
			"an <strong>inaccuracy</strong> at least "+drop(analysis.InaccuracyDrop)+", a <strong>mistake</strong> at least "+drop(analysis.MistakeDrop)+", a <strong>blunder</strong> at least "+drop(analysis.BlunderDrop)+".",
			`<bdi class="nm">Stockfish 17</bdi> (version <code><bdi>sf_17 x86-64-bmi2</bdi></code>) at depth 18`,
			`<a href="`+f.ids["mate"]+`.analysis.json">analysis.json</a>`)
		data, err := os.ReadFile(filepath.Join(out, analysisPath(f.ids["mate"])))
		if err != nil || !bytes.Equal(data, analysisJSON(f.in.Analyses[f.ids["mate"]])) {
			t.Errorf("analysis.json beside match.json: %v", err)
		}
	})
	t.Run("gomoku", func(t *testing.T) {
		five := page("five")
		has(t, "the gomoku page", five, `a3<abbr class="gm g-blunder" title="blunder">??</abbr>`,
			`<span class="tag g-blunder">blunder</span> · <span class="nw">the point to play was k8</span>`,
			`<span class="tag g-unknown">not graded</span>`, `<tr><th scope="row">Not graded</th><td class="n">4</td><td class="n">3</td></tr>`)
		lacks(t, "the gomoku page", five, `<svg class="evalgraph"`, "centipawn", "evaluation", "Accuracy", " cp<")
	})
	t.Run("failed and pending", func(t *testing.T) {
		timeout, ruling := page("timeout"), page("ruling")
		has(t, "the failed page", timeout, "The analysis of this game failed, so no grades are shown.")
		has(t, "the waiting page", ruling, "This game is being analysed")
		for name, p := range map[string]string{"failed": timeout, "waiting": ruling, "in progress": page("active")} {
			lacks(t, "the "+name+" page", p, `.analysis.json"`, `class="grade"`, "<abbr", `<svg class="evalgraph"`)
		}
		lacks(t, "the page in progress", page("active"), `id="analysis"`)
		for _, name := range []string{"timeout", "ruling"} {
			if _, err := os.Stat(filepath.Join(out, analysisPath(f.ids[name]))); err == nil {
				t.Errorf("%s has an analysis.json", name)
			}
		}
	})
	t.Run("feed", func(t *testing.T) {
		feed := readPage(t, out, "matches.json")
		has(t, "matches.json", feed, `"analysis":"m/`+f.ids["mate"]+`.analysis.json"`)
		if n := strings.Count(feed, `"analysis":`); n != 2 {
			t.Errorf("matches.json names %d analyses, want 2", n)
		}
	})
	t.Run("player", func(t *testing.T) {
		alicePage := readPage(t, out, "p/"+alice.PublicKey()+".html")
		has(t, "Alice's page", alicePage,
			`<strong>Chess</strong>: 1 analysed game, 2 moves · mean accuracy <strong>43.6%</strong> · 1 blunder, <strong>50.0</strong> per 100 moves`,
			`<strong>Gomoku</strong>: 1 analysed game, 4 moves · 1 blunder, <strong>25.0</strong> per 100 moves`,
			"by "+drop(analysis.BlunderDrop)+" points or more")
		carolPage := readPage(t, out, "p/"+carol.PublicKey()+".html")
		lacks(t, "Carol's page", carolPage, `id="quality"`)
	})
	t.Run("not analysing", func(t *testing.T) {
		f.in.Analysing = false
		out, _ := buildFixture(t, f.in)
		if p := readPage(t, out, "m/"+f.ids["ruling"]+".html"); strings.Contains(p, `id="analysis"`) {
			t.Error("a game nobody analyses has an analysis section")
		}
	})
}

// TestEvalGraph: a forced mate sits on the graph's edge whatever its Win%
// says, the start and every ply are plotted from White's side, and only
// the errors get dots.
func TestEvalGraph(t *testing.T) {
	moves := []analysis.Move{
		{Ply: 1, Before: cp(20), After: cp(20), WinBefore: 51.8, WinAfter: 51.8, Tag: analysis.TagBest},
		{Ply: 2, Before: cp(20), After: mate(3), WinBefore: 48.2, WinAfter: 40, Tag: analysis.TagBlunder}, // Win% not yet at the edge
		{Ply: 3, Before: mate(3), After: mate(-2), WinBefore: 100, WinAfter: 12, Tag: analysis.TagBlunder},
		{Ply: 4, Before: mate(-2), After: cp(-300), WinBefore: 100, WinAfter: 80, Tag: analysis.TagMistake},
		{Ply: 5, Before: cp(-300), After: mated(1), WinBefore: 20, WinAfter: 90, Tag: analysis.TagBest}, // a checkmate on the board
	}
	svg := string(evalGraph(moves, nil, "Test<Engine>"))
	m := regexp.MustCompile(`<polyline class="eg-ln" points="([^"]+)"/>`).FindStringSubmatch(svg)
	if m == nil {
		t.Fatalf("no line in %s", svg)
	}
	var ys []float64
	for _, p := range strings.Fields(m[1]) {
		_, yv, _ := strings.Cut(p, ",")
		y, err := strconv.ParseFloat(yv, 64)
		if err != nil {
			t.Fatal(err)
		}
		ys = append(ys, y)
	}
	y := func(w float64) float64 { return math.Round((egB-w*(egB-egT)/100)*10) / 10 }
	want := []float64{y(51.8), y(51.8), egT, egB, y(20), egT}
	if len(ys) != len(want) {
		t.Fatalf("%d points, want %d", len(ys), len(want))
	}
	for i := range want {
		if ys[i] != want[i] {
			t.Errorf("point %d at y %.1f, want %.1f", i, ys[i], want[i])
		}
	}
	if n := strings.Count(svg, "<circle"); n != 3 {
		t.Errorf("%d dots, want 3 (two blunders, a mistake)", n)
	}
	if !strings.Contains(svg, "From Test&lt;Engine&gt;&#39;s evaluation") || !strings.Contains(svg, "Blunders: ply 2, ply 3. Mistakes: ply 4.") {
		t.Errorf("description: %s", svg)
	}
	if evalGraph(nil, nil, "x") != "" {
		t.Error("a graph of no move")
	}
}

package site

import (
	"html/template"
	"math"
	"strconv"
	"strings"
	"time"

	"vesper/ratings"
)

// Chart geometry in SVG user units; the SVG scales to the page width.
// The box is narrow so that its 13-unit text stays above 10 px when the
// chart is shrunk to a phone's width.
const (
	chartW, chartH         = 400, 210
	plotL, plotR           = 42, 388
	plotT, plotB           = 10, 182
	chartMinSpan   float64 = 100
)

// ratingChart draws a rating history as inline SVG: the rating after each
// game as a line over a band of rating ± 2 RD, placed by date, with dates
// along the x-axis. A single game is a point with its interval as a bar.
// It is built from numbers only, so it is safe as template.HTML.
func ratingChart(hist []ratings.Point) template.HTML {
	c, ok := newChart(hist)
	if !ok {
		return ""
	}
	n := len(hist)
	c.b.WriteString(`<svg class="chart" viewBox="0 0 ` + strconv.Itoa(chartW) + ` ` + strconv.Itoa(chartH) + `" role="img" aria-label="Rating after each of ` + strconv.Itoa(n) + ` game` + plural(n) + ` by date, from ` + strconv.Itoa(round(hist[0].Rating)) + ` to ` + strconv.Itoa(round(hist[n-1].Rating)) + `">`)
	c.grid()
	if n == 1 {
		c.bar()
	} else {
		c.band()
	}
	if n <= 60 {
		for i, p := range hist {
			c.b.WriteString(`<circle class="dot" cx="` + num1(c.x(i)) + `" cy="` + num1(c.y(p.Rating)) + `" r="3"/>`)
		}
	}
	c.dates()
	c.b.WriteString(`</svg>`)
	return template.HTML(c.b.String())
}

// chart is a rating chart being drawn: the history, the rating range
// shown (lo to hi), the dates spanned (t0 to t1) and the SVG so far.
type chart struct {
	hist   []ratings.Point
	lo, hi float64
	t0, t1 int64
	b      strings.Builder
}

// newChart sets the ranges of a chart of hist; false when there is
// nothing to draw (no game, or a rating that is not a number).
func newChart(hist []ratings.Point) (*chart, bool) {
	if len(hist) == 0 {
		return nil, false
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range hist {
		if !finite(p.Rating) || !finite(p.RD) {
			return nil, false
		}
		lo, hi = math.Min(lo, p.Rating), math.Max(hi, p.Rating)
	}
	// Pad the range so a flat history is not drawn on the frame.
	if hi-lo < chartMinSpan {
		mid := (hi + lo) / 2
		lo, hi = mid-chartMinSpan/2, mid+chartMinSpan/2
	}
	pad := (hi - lo) * 0.1
	return &chart{hist: hist, lo: lo - pad, hi: hi + pad, t0: hist[0].At, t1: hist[len(hist)-1].At}, true
}

// x places game i by its date, or evenly when all share one second.
func (c *chart) x(i int) float64 {
	if c.t1 <= c.t0 {
		if len(c.hist) == 1 {
			return (plotL + plotR) / 2
		}
		return plotL + float64(i)*(plotR-plotL)/float64(len(c.hist)-1)
	}
	return plotL + float64(c.hist[i].At-c.t0)*(plotR-plotL)/float64(c.t1-c.t0)
}

// y places a rating, clamped to the range shown.
func (c *chart) y(r float64) float64 {
	r = math.Max(c.lo, math.Min(c.hi, r))
	return plotB - (r-c.lo)*(plotB-plotT)/(c.hi-c.lo)
}

func num1(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// grid draws horizontal lines at a round rating step, labelled.
func (c *chart) grid() {
	step := niceStep((c.hi - c.lo) / 4)
	for g := math.Ceil(c.lo/step) * step; g <= c.hi; g += step {
		c.b.WriteString(`<path class="gl" d="M` + strconv.Itoa(plotL) + ` ` + num1(c.y(g)) + `H` + strconv.Itoa(plotR) + `"/>`)
		c.b.WriteString(`<text class="ax" x="` + strconv.Itoa(plotL-4) + `" y="` + num1(c.y(g)+4) + `" text-anchor="end">` + strconv.Itoa(int(g)) + `</text>`)
	}
}

// bar is a single game's interval.
func (c *chart) bar() {
	p, x := c.hist[0], c.x(0)
	c.b.WriteString(`<path class="band" d="M` + num1(x-8) + " " + num1(c.y(p.Rating+2*p.RD)) + "H" + num1(x+8) +
		"V" + num1(c.y(p.Rating-2*p.RD)) + "H" + num1(x-8) + `Z"/>`)
}

// band is the interval of every game, its upper edge left to right and
// its lower edge back, under the line of ratings.
func (c *chart) band() {
	c.b.WriteString(`<path class="band" d="`)
	for i, p := range c.hist {
		cmd := "L"
		if i == 0 {
			cmd = "M"
		}
		c.b.WriteString(cmd + num1(c.x(i)) + " " + num1(c.y(p.Rating+2*p.RD)))
	}
	for i := len(c.hist) - 1; i >= 0; i-- {
		c.b.WriteString("L" + num1(c.x(i)) + " " + num1(c.y(c.hist[i].Rating-2*c.hist[i].RD)))
	}
	c.b.WriteString(`Z"/><polyline class="line" points="`)
	for i, p := range c.hist {
		if i > 0 {
			c.b.WriteByte(' ')
		}
		c.b.WriteString(num1(c.x(i)) + "," + num1(c.y(p.Rating)))
	}
	c.b.WriteString(`"/>`)
}

// dates labels the axis: the first and the last game, and the middle of
// the span when it is long enough to need it.
func (c *chart) dates() {
	day := func(t int64) string { return time.Unix(t, 0).UTC().Format("2006-01-02") }
	label := func(at float64, anchor, text string) {
		c.b.WriteString(`<text class="ax" x="` + num1(at) + `" y="` + strconv.Itoa(chartH-8) + `" text-anchor="` + anchor + `">` + text + `</text>`)
	}
	c.b.WriteString(`<path class="gl" d="M` + strconv.Itoa(plotL) + " " + strconv.Itoa(plotB) + "H" + strconv.Itoa(plotR) + `"/>`)
	t0, t1 := c.t0, c.t1
	switch {
	case t1 <= t0 || day(t0) == day(t1):
		label((plotL+plotR)/2, "middle", day(t0))
	default:
		label(plotL, "start", day(t0))
		label(plotR, "end", day(t1))
		if t1-t0 >= 3*86400 {
			label((plotL+plotR)/2, "middle", day(t0+(t1-t0)/2))
		}
	}
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// niceStep rounds a raw step up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 || !finite(raw) {
		return 100
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*p {
			return m * p
		}
	}
	return 10 * p
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

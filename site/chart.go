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
	if len(hist) == 0 {
		return ""
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range hist {
		if !finite(p.Rating) || !finite(p.RD) {
			return ""
		}
		lo, hi = math.Min(lo, p.Rating), math.Max(hi, p.Rating)
	}
	// Pad the range so a flat history is not drawn on the frame.
	if hi-lo < chartMinSpan {
		mid := (hi + lo) / 2
		lo, hi = mid-chartMinSpan/2, mid+chartMinSpan/2
	}
	pad := (hi - lo) * 0.1
	lo, hi = lo-pad, hi+pad
	t0, t1 := hist[0].At, hist[len(hist)-1].At
	x := func(i int) float64 {
		if t1 <= t0 {
			if len(hist) == 1 {
				return (plotL + plotR) / 2
			}
			return plotL + float64(i)*(plotR-plotL)/float64(len(hist)-1)
		}
		return plotL + float64(hist[i].At-t0)*(plotR-plotL)/float64(t1-t0)
	}
	y := func(r float64) float64 {
		r = math.Max(lo, math.Min(hi, r))
		return plotB - (r-lo)*(plotB-plotT)/(hi-lo)
	}
	num := func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

	var b strings.Builder
	b.WriteString(`<svg class="chart" viewBox="0 0 ` + strconv.Itoa(chartW) + ` ` + strconv.Itoa(chartH) + `" role="img" aria-label="Rating after each of ` + strconv.Itoa(len(hist)) + ` game` + plural(len(hist)) + ` by date, from ` + strconv.Itoa(round(hist[0].Rating)) + ` to ` + strconv.Itoa(round(hist[len(hist)-1].Rating)) + `">`)
	// Grid lines at a round step.
	step := niceStep((hi - lo) / 4)
	for g := math.Ceil(lo/step) * step; g <= hi; g += step {
		b.WriteString(`<path class="gl" d="M` + strconv.Itoa(plotL) + ` ` + num(y(g)) + `H` + strconv.Itoa(plotR) + `"/>`)
		b.WriteString(`<text class="ax" x="` + strconv.Itoa(plotL-4) + `" y="` + num(y(g)+4) + `" text-anchor="end">` + strconv.Itoa(int(g)) + `</text>`)
	}
	if len(hist) == 1 {
		p := hist[0]
		b.WriteString(`<path class="band" d="M` + num(x(0)-8) + " " + num(y(p.Rating+2*p.RD)) + "H" + num(x(0)+8) +
			"V" + num(y(p.Rating-2*p.RD)) + "H" + num(x(0)-8) + `Z"/>`)
	} else {
		// The band: upper edge left to right, lower edge back.
		b.WriteString(`<path class="band" d="`)
		for i, p := range hist {
			cmd := "L"
			if i == 0 {
				cmd = "M"
			}
			b.WriteString(cmd + num(x(i)) + " " + num(y(p.Rating+2*p.RD)))
		}
		for i := len(hist) - 1; i >= 0; i-- {
			b.WriteString("L" + num(x(i)) + " " + num(y(hist[i].Rating-2*hist[i].RD)))
		}
		b.WriteString(`Z"/><polyline class="line" points="`)
		for i, p := range hist {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(num(x(i)) + "," + num(y(p.Rating)))
		}
		b.WriteString(`"/>`)
	}
	if len(hist) <= 60 {
		for i, p := range hist {
			b.WriteString(`<circle class="dot" cx="` + num(x(i)) + `" cy="` + num(y(p.Rating)) + `" r="3"/>`)
		}
	}
	// Dates under the axis: the first and the last game, and the middle of
	// the span when it is long enough to need it.
	day := func(t int64) string { return time.Unix(t, 0).UTC().Format("2006-01-02") }
	label := func(at float64, anchor, text string) {
		b.WriteString(`<text class="ax" x="` + num(at) + `" y="` + strconv.Itoa(chartH-8) + `" text-anchor="` + anchor + `">` + text + `</text>`)
	}
	b.WriteString(`<path class="gl" d="M` + strconv.Itoa(plotL) + " " + strconv.Itoa(plotB) + "H" + strconv.Itoa(plotR) + `"/>`)
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
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
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

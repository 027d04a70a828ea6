package site

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"vesper/match"
)

//go:embed templates/*.html templates/*.css
var templateFS embed.FS

// styleSheets are the style sheets the build writes once at the site root:
// style.css, the CSS of every page (linked from layout.html), and game.css,
// that of every game page (match.html). Sent once and cached, rather than
// about 8 KB inline in each of tens of thousands of pages (issue 37).
var styleSheets = []string{"style.css", "game.css"}

// pageNames are the page templates; each is parsed with layout.html.
var pageNames = []string{"index", "match", "player", "ratings", "howto", "archive", "models", "h2h", "protocol"}

// templates are the parsed pages of one build, and their source bytes (for
// the render id of match keys).
type templates struct {
	set    map[string]*template.Template
	source []byte
	sheets map[string][]byte // styleSheets by name
}

func parseTemplates() (*templates, error) {
	t := &templates{set: map[string]*template.Template{}}
	layout, err := fs.ReadFile(templateFS, "templates/layout.html")
	if err != nil {
		return nil, fmt.Errorf("site: %w", err)
	}
	t.source = append(t.source, layout...)
	t.sheets = map[string][]byte{}
	for _, name := range styleSheets {
		css, err := fs.ReadFile(templateFS, "templates/"+name)
		if err != nil {
			return nil, fmt.Errorf("site: %w", err)
		}
		t.sheets[name] = css
	}
	base, err := template.New("layout").Funcs(funcs).Parse(string(layout))
	if err != nil {
		return nil, fmt.Errorf("site: layout.html: %w", err)
	}
	for _, name := range pageNames {
		src, err := fs.ReadFile(templateFS, "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("site: %w", err)
		}
		t.source = append(t.source, src...)
		clone, err := base.Clone()
		if err != nil {
			return nil, fmt.Errorf("site: %w", err)
		}
		if _, err := clone.Parse(string(src)); err != nil {
			return nil, fmt.Errorf("site: %s.html: %w", name, err)
		}
		t.set[name] = clone
	}
	return t, nil
}

func (t *templates) render(name string, data any) ([]byte, error) {
	var b bytes.Buffer
	if mp, ok := data.(*matchPage); ok {
		// A match page is mostly its steps and its events table: sized
		// once for them rather than doubled up to a few hundred KB.
		b.Grow(len(mp.Steps) + len(mp.EventsHTML) + len(mp.IgnoredHTML) + 32<<10)
	}
	if err := t.set[name].ExecuteTemplate(&b, "layout", data); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// funcs are the template helpers. They format numbers and times; only date
// and day return HTML, built from a number alone.
// date and day come wrapped in a no-wrap span: a date split at its hyphens
// over two lines is what a phone showed before (issue 17 item 2).
var funcs = template.FuncMap{
	"date": func(t int64) template.HTML { return template.HTML(hdate(t)) },
	"day": func(t int64) template.HTML {
		return template.HTML(`<span class="nw">` + time.Unix(t, 0).UTC().Format("2006-01-02") + `</span>`)
	},
	"iso":       func(t int64) string { return time.Unix(t, 0).UTC().Format(time.RFC3339) },
	"dur":       duration,
	"add":       func(a, b int) int { return a + b },
	"moveCount": moveCount,
	// perGame is n per game over games, one decimal.
	"perGame": func(n, games int) string {
		if games == 0 {
			return "–"
		}
		return strconv.FormatFloat(float64(n)/float64(games), 'f', 1, 64)
	},
	"short": shortID,
	"span":  span, "spanAdj": spanAdj, "commentShown": commentShown,
	// The games' registry, so that pages naming the games follow it.
	"games":      match.Games,
	"gameNouns":  match.NounList,
	"sidesText":  match.SidesText,
	"capitalize": func(s string) string { return strings.ToUpper(s[:1]) + s[1:] },
}

// shortID is an event id's first twelve characters and an ellipsis.
func shortID(id string) string {
	if len(id) > shortLen {
		return id[:shortLen] + "…"
	}
	return id
}

// shortLen is how many of an id's characters shortID prints.
const shortLen = 12

// matchRoot is the path from a match page (m/<id>.html) to the site's root.
const matchRoot = "../"

func date(t int64) string { return time.Unix(t, 0).UTC().Format("2006-01-02 15:04 UTC") }

// duration writes seconds as "3 d 4 h", "5 h 07 min" or "12 min".
func duration(s int64) string {
	if s < 0 {
		s = -s
	}
	m := s / 60
	switch {
	case m < 60:
		return strconv.FormatInt(m, 10) + " min"
	case m < 24*60:
		return fmt.Sprintf("%d h %02d min", m/60, m%60)
	}
	return fmt.Sprintf("%d d %d h", m/(24*60), m/60%24)
}

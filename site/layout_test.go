package site

import (
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vesper/internal/browser"
	"vesper/internal/testkit"
	"vesper/nostr"
)

var docShots = flag.Bool("docs-screenshots", false, "rewrite ../docs/screenshot-match.png and ../docs/screenshot-leaderboard.png")

// layoutCheck runs in the page (injected by the test through DevTools; the
// site has no script). It reports what a reader would see broken:
//   - text rendered under 10 px, SVG text measured at its drawn size;
//   - a word split over two lines, outside the elements that may break
//     long tokens (ids, names, user content, headings);
//   - a table cell whose content is wider than the cell;
//   - a page wider than the window (tables scroll inside .wrap instead).
//
// It also returns the page's links and ids for the link checks.
const layoutCheck = `(() => {
  const problems = [];
  const shown = el => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
  const desc = el => "<" + el.tagName.toLowerCase() + (el.getAttribute("class") ? " class=" + el.getAttribute("class") : "") + ">";
  for (const el of document.querySelectorAll("body *")) {
    if (el.closest(".defs") || !shown(el)) continue;
    const text = [...el.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join("").trim();
    if (!text) continue;
    let size = parseFloat(getComputedStyle(el).fontSize);
    if (el instanceof SVGElement) {
      const m = el.getScreenCTM();
      if (!m) continue;
      size *= Math.hypot(m.a, m.b);
    }
    if (size < 10) problems.push("font " + size.toFixed(1) + " px: " + desc(el) + " " + JSON.stringify(text.slice(0, 30)));
  }
  const mayBreak = "svg, .id, .nm, pre, .about, h1, td code, li code";
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let n; (n = walker.nextNode()); ) {
    const el = n.parentElement;
    if (!el || el.closest(mayBreak) || !shown(el)) continue;
    const re = /[^\s-]+-?/g; // a line may end after a hyphen
    for (let m; (m = re.exec(n.textContent)); ) {
      range.setStart(n, m.index);
      range.setEnd(n, m.index + m[0].length);
      const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
      if (tops.size > 1) problems.push("word broken over lines: " + JSON.stringify(m[0].slice(0, 40)) + " in " + desc(el));
    }
  }
  for (const c of document.querySelectorAll("td, th")) {
    if (shown(c) && c.scrollWidth > c.clientWidth + 1)
      problems.push("cell narrower than its content (" + c.scrollWidth + " > " + c.clientWidth + " px): " + JSON.stringify(c.textContent.trim().slice(0, 40)));
  }
  const W = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > W + 1)
    problems.push("page " + document.documentElement.scrollWidth + " px wide in a " + W + " px window");
  return {problems, links: [...document.querySelectorAll("a[href]")].map(a => new URL(a.getAttribute("href"), document.baseURI).href), ids: [...document.querySelectorAll("[id]")].map(e => e.id)};
})()`

// staticFiles serves the built site as a plain web server would, without
// http.FileServer's redirect of index.html to the directory.
func staticFiles(root string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rel := strings.TrimPrefix(r.URL.Path, "/")
		if rel == "" {
			rel = "index.html"
		}
		if !validSitePath(rel) {
			http.NotFound(w, r)
			return
		}
		f, err := os.Open(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil || fi.IsDir() {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, rel, fi.ModTime(), f)
	})
}

type layoutReport struct {
	Problems, Links, IDs []string
}

// showcase is the fixture grown into a small season, so that every page
// type has the rows a visitor would meet: ranked and provisional players,
// a long game, a finished gomoku game, names long enough to wrap.
func showcase(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t)
	names := []string{"Deep Thought the Third", "gomoku-grinder", "Pawnstorm", "Zugzwang Zoe", strings.Repeat("W", 40), "Kasparobot"}
	var bots []nostr.SecretKey
	for i, name := range names {
		k := testkit.Key("showcase-" + name)
		bots = append(bots, k)
		f.in.Profiles[k.PublicKey()] = Profile{Name: name, Bot: true, About: "Bot number " + fmt.Sprint(i+1)}
	}
	start := now - 30*86400
	add := func(m *testkit.Match) {
		s := foldT(t, m)
		f.in.States = append(f.in.States, s)
		for _, ev := range m.Events {
			f.in.SeenAt[ev.ID] = int64(ev.CreatedAt) + 1
		}
	}
	white := []string{"e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"} // scholar's mate
	black := []string{"f2f3", "e7e5", "g2g4", "d8h4"}                         // fool's mate
	for i := range 90 {
		a, b := bots[i%len(bots)], bots[(i*5+1)%len(bots)]
		if a.PublicKey() == b.PublicKey() {
			b = bots[(i+2)%len(bots)]
		}
		at := start + int64(i)*7*3600
		m := testkit.NewMatch(a, b, "chess", "", at)
		m.Accept(at + 60)
		var r nostr.Result
		switch (i * 7) % 5 {
		case 0, 1:
			last := m.Play(white, at+120, 60)
			s := foldT(t, m)
			r = result(s, "first", "checkmate")
			m.Result(a, r, last+5)
			m.Result(b, r, last+6)
		case 2, 3:
			last := m.Play(black, at+120, 60)
			s := foldT(t, m)
			r = result(s, "second", "checkmate")
			m.Result(a, r, last+5)
			m.Result(b, r, last+6)
		default:
			last := m.Play([]string{"e2e4", "e7e5"}, at+120, 60)
			s := foldT(t, m)
			r = result(s, "draw", "agreement")
			m.Result(a, r, last+5)
			m.Result(b, r, last+6)
		}
		add(m)
	}
	// The Opera Game (Morphy, 1858), for a match page with a real game.
	opera := strings.Fields("e2e4 e7e5 g1f3 d7d6 d2d4 c8g4 d4e5 g4f3 d1f3 d6e5 f1c4 g8f6 f3b3 d8e7 b1c3 c7c6 c1g5 b7b5 c3b5 c6b5 c4b5 b8d7 e1c1 a8d8 d1d7 d8d7 h1d1 e7e6 b5d7 f6d7 b3b8 d7b8 d1d8")
	m := testkit.NewMatch(bots[5], bots[0], "chess", "", now-2*86400)
	m.Accept(now - 2*86400 + 60)
	last := m.Play(opera, now-2*86400+120, 90)
	s := foldT(t, m)
	m.Result(bots[0], result(s, "first", "checkmate"), last+10)
	m.Result(bots[5], result(s, "first", "checkmate"), last+20)
	add(m)
	f.ids["opera"], f.games["opera"] = m.ID, m
	// Its analysis: the evaluation after each ply, White's side, so the
	// page shows a graph with each kind of error on it.
	evals := []int{30, 35, 30, 60, 55, 120, 60, 150, 150, 170, 170, 300, 290, 600, 560, 650, 640, 900, 880, 900, 900, 900, 890, 950, 950, 1000}
	var plies []testPly
	for _, e := range evals {
		plies = append(plies, testPly{after: cp(e)})
	}
	plies[13].best, plies[17].best = "Qd7", "Nbd7"
	for n := 6; n >= 1; n-- {
		plies = append(plies, testPly{after: mate(n)})
	}
	plies = append(plies, testPly{after: mated(1)})
	f.in.Analyses[m.ID] = testAnalysis(foldT(t, m), cp(20), plies)
	f.in.RatingGames = RatingGames(f.in.States)
	return f
}

// TestBrowserLayout loads the site in headless Chromium, the way a visitor
// reads it, at 1280 and 390 px. Every page reachable from index.html is
// checked at 390 px (match pages: one of each type; the rest are checked
// to exist): no text under 10 px, no broken word, no cell narrower than its
// content, no page wider than the window; every link resolves, fragments
// included, and every finished match is reachable from index.html through
// the links the browser sees. Screenshots of every page type at both
// widths go to VESPER_SCREENSHOT_DIR (or a temporary directory); with
// -docs-screenshots the README's two are rewritten under docs/.
func TestBrowserLayout(t *testing.T) {
	testkit.QuickLoopSkips(t)
	bin := browser.Chromium(t)
	f := showcase(t)
	out, _ := buildFixture(t, f.in)
	srv := httptest.NewServer(staticFiles(out))
	defer srv.Close()
	br := browser.Start(t, bin)

	// One match page of each kind of page state is loaded, and a few
	// player pages; the others only need to exist (every page is built
	// from the same templates, and the archive pages, all loaded, link
	// every finished match). This keeps the test to seconds.
	loadMatch := map[string]bool{}
	for _, name := range []string{"mate", "five", "timeout", "ruling", "active", "open", "invite", "expired", "opera"} {
		loadMatch["m/"+f.ids[name]+".html"] = true
	}
	check := func(t *testing.T, rel string, width int) layoutReport {
		t.Helper()
		br.Open(t, srv.URL+"/"+rel, width)
		var r layoutReport
		br.Eval(t, layoutCheck, &r)
		for _, p := range r.Problems {
			t.Errorf("%s at %d px: %s", rel, width, p)
		}
		return r
	}

	reached := map[string]bool{"index.html": true}
	ids := map[string][]string{}
	queue := []string{"index.html"}
	var links []string
	players := 0
	for len(queue) > 0 {
		rel := queue[0]
		queue = queue[1:]
		r := check(t, rel, 390)
		ids[rel] = r.IDs
		for _, l := range r.Links {
			u, err := url.Parse(l)
			if err != nil || u.Host != strings.TrimPrefix(srv.URL, "http://") {
				continue // https links out: the hostile test covers them
			}
			links = append(links, l)
			target := strings.TrimPrefix(u.Path, "/")
			if reached[target] {
				continue
			}
			reached[target] = true
			switch {
			case !strings.HasSuffix(target, ".html"):
			case strings.HasPrefix(target, "m/") && !loadMatch[target]:
			case strings.HasPrefix(target, "p/") && players >= 4:
			default:
				if strings.HasPrefix(target, "p/") {
					players++
				}
				queue = append(queue, target)
			}
		}
	}
	t.Logf("%d pages checked in the browser, %d reached, %d links", len(ids), len(reached), len(links))

	status := map[string]int{}
	for _, l := range links {
		u, _ := url.Parse(l)
		target := strings.TrimPrefix(u.Path, "/")
		if _, ok := status[target]; !ok {
			resp, err := http.Head(srv.URL + "/" + target)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			status[target] = resp.StatusCode
		}
		if status[target] != http.StatusOK {
			t.Errorf("link %s: status %d", l, status[target])
		}
		if pageIDs, ok := ids[target]; ok && u.Fragment != "" && !slices.Contains(pageIDs, u.Fragment) {
			t.Errorf("link %s: no id %q on the page", l, u.Fragment)
		}
	}
	finished := 0
	for _, s := range f.in.States {
		if s.Over {
			finished++
			if !reached["m/"+s.Match+".html"] {
				t.Errorf("finished match %s is not reachable from index.html", s.Match[:12])
			}
		}
	}
	if finished < 90 {
		t.Fatalf("only %d finished matches in the showcase", finished)
	}

	shots := os.Getenv("VESPER_SCREENSHOT_DIR")
	if shots == "" {
		shots = t.TempDir()
	}
	types := []struct{ name, rel string }{
		{"index", "index.html"},
		{"match-chess", "m/" + f.ids["opera"] + ".html"},
		{"match-gomoku", "m/" + f.ids["five"] + ".html"},
		{"match-active", "m/" + f.ids["active"] + ".html"},
		{"player", "p/" + f.games["opera"].A.PublicKey() + ".html"},
		{"ratings", "ratings/chess.html"},
		{"archive", "archive/chess-1.html"},
		{"how-to-play", "how-to-play.html"},
	}
	for _, width := range []int{1280, 390} {
		for _, p := range types {
			check(t, p.rel, width)
			png := br.Screenshot(t, width, 2400)
			name := fmt.Sprintf("%s-%d.png", p.name, width)
			if err := os.WriteFile(filepath.Join(shots, name), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if *docShots {
		// The README's two: the top of a match page (players with their
		// ratings, the result and how it became final, the board beside
		// the moves) and a leaderboard.
		for _, d := range []struct {
			rel, dst string
			height   float64
		}{
			{"m/" + f.ids["opera"] + ".html", "screenshot-match.png", 1330},
			{"ratings/chess.html", "screenshot-leaderboard.png", 1000},
		} {
			br.Open(t, srv.URL+"/"+d.rel, 1280)
			if err := os.WriteFile(filepath.Join("..", "docs", d.dst), br.Screenshot(t, 1280, d.height), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("screenshots in %s", shots)
}

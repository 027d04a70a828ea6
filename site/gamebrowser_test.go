package site

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// gameTop runs in a game page (injected through DevTools; the site has no
// script): where the shown board's top is, from the top of the document,
// and the window's height.
const gameTop = `(() => {
  const boards = [...document.querySelectorAll(".steps svg")].filter(e => e.getClientRects().length > 0);
  const r = boards.length ? boards[0].getBoundingClientRect() : null;
  return {top: r ? r.top + window.scrollY : -1, height: window.innerHeight, boards: boards.length};
})()`

// brokenWords runs in a page: every word (hyphens may end a line) drawn
// on more than one line, outside what a player chose (names, and the
// content of their events, which the pages isolate in <bdi>) and outside
// SVG and preformatted text. Each is reported with its element.
const brokenWords = `(() => {
  const out = [];
  // A closed <details> keeps its content laid out, unseen.
  const shown = el => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden" &&
    !el.closest("details:not([open]) > :not(summary)");
  const chosen = "svg, .nm, bdi, pre";
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let n; (n = walker.nextNode()); ) {
    const el = n.parentElement;
    if (!el || el.closest(chosen) || !shown(el)) continue;
    const re = /[^\s-]+-?/g;
    for (let m; (m = re.exec(n.textContent)); ) {
      range.setStart(n, m.index);
      range.setEnd(n, m.index + m[0].length);
      const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
      if (tops.size > 1) out.push(JSON.stringify(m[0].slice(0, 40)) + " in <" + el.tagName.toLowerCase() + (el.className ? " class=" + el.className : "") + ">" + (el.closest("td, th") ? " (a table cell)" : ""));
    }
  }
  return out;
})()`

// gameSmallTargets lists the replay's and the crosstable's links smaller
// than 24x24 px (WCAG 2.5.8): the moves, the step links, the crosstable's
// games and the files. Links inside sentences are exempt, and the
// evaluation graph's points have the move list as their equivalent.
const gameSmallTargets = `(() => [...document.querySelectorAll(".moves a, .stepnav a, .xt a, .files a")]
  .filter(a => a.getClientRects().length > 0 && !a.closest("details:not([open])"))
  .map(a => [a, a.getBoundingClientRect()])
  .filter(([a, r]) => r.width < 24 || r.height < 24)
  .map(([a, r]) => JSON.stringify(a.textContent.slice(0, 20)) + " " + Math.round(r.width) + "x" + Math.round(r.height)))()`

// screens are the windows a game page must open on its board in: a
// desktop and a phone.
var screens = []struct{ width, height int }{{1280, 800}, {390, 844}}

// TestBrowserGamePagesBoardFirst loads every game page of a season, chess
// and gomoku, in every state (the showcase: the fixture's games and 91
// more), at 1280x800 and 390x844 in headless Chromium: the board's top is
// within the first screen, and no word outside what a player chose is
// broken over two lines (issue 26: the board was 878-1,662 px down, and
// most broken words were ids in table cells). Screenshots of the first
// screen go to VESPER_SCREENSHOT_DIR when it is set.
func TestBrowserGamePagesBoardFirst(t *testing.T) {
	bin := chromium(t)
	f := showcase(t)
	checkGamePages(t, bin, f.in, os.Getenv("VESPER_SCREENSHOT_DIR"))
}

// TestBrowserHostileGamePagesUnbroken is the same over the hostile season:
// names and contents built to break the layout.
func TestBrowserHostileGamePagesUnbroken(t *testing.T) {
	bin := chromium(t)
	checkGamePages(t, bin, hostileInput(t), "")
}

func checkGamePages(t *testing.T, bin string, in Input, shots string) {
	t.Helper()
	out, _ := buildFixture(t, in)
	srv := httptest.NewServer(staticFiles(out))
	defer srv.Close()
	br := startBrowser(t, bin)
	pages := 0
	worst := map[int]float64{}
	for _, s := range in.States {
		if !folded(s) {
			continue
		}
		pages++
		rel := "m/" + s.Match + ".html"
		for _, sc := range screens {
			br.openAt(t, srv.URL+"/"+rel, sc.width, sc.height)
			var g struct {
				Top    float64
				Height float64
				Boards int
			}
			br.eval(t, gameTop, &g)
			if g.Boards != 1 || g.Top < 0 || g.Top >= float64(sc.height) {
				t.Errorf("%s (%s) at %dx%d: the board's top is at %.0f px (%d boards shown)", rel, s.Kind, sc.width, sc.height, g.Top, g.Boards)
			}
			worst[sc.width] = max(worst[sc.width], g.Top)
			var small []string
			br.eval(t, gameSmallTargets, &small)
			for _, s := range small {
				t.Errorf("%s at %d px: a target under 24x24 px: %s", rel, sc.width, s)
			}
			var broken []string
			br.eval(t, brokenWords, &broken)
			for _, w := range broken {
				t.Errorf("%s at %d px: word broken over lines: %s", rel, sc.width, w)
			}
			if shots != "" && pages <= 3 {
				name := fmt.Sprintf("game-%s-%d.png", s.Match[:8], sc.width)
				if err := os.WriteFile(filepath.Join(shots, name), br.screenshot(t, sc.width, float64(sc.height)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	h2h := checkH2HPages(t, br, srv.URL, in)
	if pages < 5 {
		t.Fatalf("only %d game pages", pages)
	}
	t.Logf("%d game pages, %d head-to-head pages; the lowest board top: %.0f px at 1280x800, %.0f px at 390x844", pages, h2h, worst[1280], worst[390])
}

// checkH2HPages checks the words of the head-to-head pages the game pages
// of in link (their id column), and returns how many there are.
func checkH2HPages(t *testing.T, br *browser, base string, in Input) int {
	t.Helper()
	seen := map[string]bool{}
	for _, s := range in.States {
		if !folded(s) || !s.Accepted {
			continue
		}
		p := h2hPath(s.First, s.Second)
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		for _, sc := range screens {
			br.openAt(t, base+"/"+p, sc.width, sc.height)
			var broken []string
			br.eval(t, brokenWords, &broken)
			for _, w := range broken {
				t.Errorf("%s at %d px: word broken over lines: %s", p, sc.width, w)
			}
		}
	}
	return len(seen)
}

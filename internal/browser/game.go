package browser

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
)

// Chromium finds Debian's chromium; the test is skipped without it unless
// VESPER_REQUIRE_BROWSER is set (CI sets it, so CI cannot skip silently).
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("VESPER_REQUIRE_BROWSER") != "" {
		t.Fatal("chromium not found and VESPER_REQUIRE_BROWSER is set (apt-get install -y chromium)")
	}
	t.Skip("chromium not found (apt-get install -y chromium; set VESPER_REQUIRE_BROWSER to make this an error)")
	return ""
}

// GameTop runs in a game page (injected through DevTools; the site has no
// script): where the shown board's top is, from the top of the document,
// and the window's height.
const GameTop = `(() => {
  const boards = [...document.querySelectorAll(".steps svg")].filter(e => e.getClientRects().length > 0);
  const r = boards.length ? boards[0].getBoundingClientRect() : null;
  return {top: r ? r.top + window.scrollY : -1, height: window.innerHeight, boards: boards.length};
})()`

// BrokenWords runs in a page: every word (hyphens may end a line) drawn
// on more than one line, outside what a player chose (names, and the
// content of their events, which the pages isolate in <bdi>) and outside
// SVG and preformatted text. Each is reported with its element.
const BrokenWords = `(() => {
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

// GameSmallTargets lists the replay's and the crosstable's links smaller
// than 24x24 px (WCAG 2.5.8): the moves, the step links, the crosstable's
// games and the files. Links inside sentences are exempt, and the
// evaluation graph's points have the move list as their equivalent.
const GameSmallTargets = `(() => [...document.querySelectorAll(".moves a, .stepnav a, .xt a, .files a")]
  .filter(a => a.getClientRects().length > 0 && !a.closest("details:not([open])"))
  .map(a => [a, a.getBoundingClientRect()])
  .filter(([a, r]) => r.width < 24 || r.height < 24)
  .map(([a, r]) => JSON.stringify(a.textContent.slice(0, 20)) + " " + Math.round(r.width) + "x" + Math.round(r.height)))()`

// Screen is a window size.
type Screen struct{ Width, Height int }

// Screens are the windows a game page must open on its board in: a
// desktop and a phone (issue 26).
var Screens = []Screen{{1280, 800}, {390, 844}}

// CheckGamePage loads the game page at url (named name in errors) in a
// window of sc: the board's top is within the first screen, no replay
// link is under 24x24 px, and no word outside what a player chose is
// broken over two lines. It returns the board's top, in px.
func CheckGamePage(t testing.TB, br *Browser, url, name string, sc Screen) float64 {
	t.Helper()
	br.OpenAt(t, url, sc.Width, sc.Height)
	var g struct {
		Top    float64
		Height float64
		Boards int
	}
	br.Eval(t, GameTop, &g)
	if g.Boards != 1 || g.Top < 0 || g.Top >= float64(sc.Height) {
		t.Errorf("%s at %dx%d: the board's top is at %.0f px (%d boards shown)", name, sc.Width, sc.Height, g.Top, g.Boards)
	}
	var small []string
	br.Eval(t, GameSmallTargets, &small)
	for _, s := range small {
		t.Errorf("%s at %d px: a target under 24x24 px: %s", name, sc.Width, s)
	}
	var broken []string
	br.Eval(t, BrokenWords, &broken)
	for _, w := range broken {
		t.Errorf("%s at %d px: word broken over lines: %s", name, sc.Width, w)
	}
	return g.Top
}

// CheckSiteGamePages serves the built site in dir on loopback and checks
// every game page (m/*.html) at every screen with CheckGamePage. It
// returns how many pages it checked and the lowest board top per width.
func CheckSiteGamePages(t testing.TB, bin, dir string) (pages int, worst map[int]float64) {
	t.Helper()
	// The site's directory may be a symlink to the current build.
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	rels, err := filepath.Glob(filepath.Join(root, "m", "*.html"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(rels)
	srv := httptest.NewServer(http.FileServer(http.Dir(root)))
	defer srv.Close()
	br := Start(t, bin)
	worst = map[int]float64{}
	for _, p := range rels {
		rel := "m/" + filepath.Base(p)
		for _, sc := range Screens {
			worst[sc.Width] = max(worst[sc.Width], CheckGamePage(t, br, srv.URL+"/"+rel, rel, sc))
		}
	}
	return len(rels), worst
}

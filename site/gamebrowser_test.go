package site

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"vesper/internal/browser"
	"vesper/internal/testkit"
)

// TestBrowserGamePagesBoardFirst loads every game page of a season, chess
// and gomoku, in every state (the showcase: the fixture's games and 91
// more), at 1280x800 and 390x844 in headless Chromium: the board's top is
// within the first screen, and no word outside what a player chose is
// broken over two lines (issue 26: the board was 878-1,662 px down, and
// most broken words were ids in table cells). Screenshots of the first
// screen go to VESPER_SCREENSHOT_DIR when it is set.
func TestBrowserGamePagesBoardFirst(t *testing.T) {
	testkit.QuickLoopSkips(t)
	bin := browser.Chromium(t)
	f := showcase(t)
	checkGamePages(t, bin, f.in, os.Getenv("VESPER_SCREENSHOT_DIR"))
}

// TestBrowserHostileGamePagesUnbroken is the same over the hostile season:
// names and contents built to break the layout.
func TestBrowserHostileGamePagesUnbroken(t *testing.T) {
	bin := browser.Chromium(t)
	checkGamePages(t, bin, hostileInput(t), "")
}

func checkGamePages(t *testing.T, bin string, in Input, shots string) {
	t.Helper()
	out, _ := buildFixture(t, in)
	srv := httptest.NewServer(staticFiles(out))
	defer srv.Close()
	br := browser.Start(t, bin)
	pages := 0
	worst := map[int]float64{}
	for _, s := range in.States {
		if !folded(s) {
			continue
		}
		pages++
		rel := "m/" + s.Match + ".html"
		for _, sc := range browser.Screens {
			top := browser.CheckGamePage(t, br, srv.URL+"/"+rel, fmt.Sprintf("%s (%s)", rel, s.Kind), sc)
			worst[sc.Width] = max(worst[sc.Width], top)
			if shots != "" && pages <= 3 {
				name := fmt.Sprintf("game-%s-%d.png", s.Match[:8], sc.Width)
				if err := os.WriteFile(filepath.Join(shots, name), br.Screenshot(t, sc.Width, float64(sc.Height)), 0o644); err != nil {
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
func checkH2HPages(t *testing.T, br *browser.Browser, base string, in Input) int {
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
		for _, sc := range browser.Screens {
			br.OpenAt(t, base+"/"+p, sc.Width, sc.Height)
			var broken []string
			br.Eval(t, browser.BrokenWords, &broken)
			for _, w := range broken {
				t.Errorf("%s at %d px: word broken over lines: %s", p, sc.Width, w)
			}
		}
	}
	return len(seen)
}

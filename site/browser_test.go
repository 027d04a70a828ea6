package site

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"vesper/internal/browser"
	"vesper/internal/testkit"
)

// loadPage opens url in headless Chromium as a phone-sized window, saves a
// screenshot and returns the DOM after load (scripts, had any run, would
// have run by then).
func loadPage(t *testing.T, bin, url, shot string) string {
	t.Helper()
	// A browser that dies by a signal (Chromium's renderer now and then
	// segfaults on a loaded host) has said nothing about the page: it is
	// started again, twice at most. A page that crashes it every time still
	// fails.
	for attempt := 1; ; attempt++ {
		dom, crashed, err := runChromium(bin, url, shot)
		if crashed && attempt < 3 {
			t.Logf("chromium %s crashed (attempt %d), starting it again: %v", url, attempt, err)
			continue
		}
		if err != nil {
			t.Fatalf("chromium %s: %v", url, err)
		}
		return dom
	}
}

// runChromium loads url once in a fresh headless Chromium and returns the
// DOM; crashed says the browser died by a signal.
func runChromium(bin, url, shot string) (dom string, crashed bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(90*time.Second))
	defer cancel()
	profile, err := os.MkdirTemp("", "vesper-chromium-")
	if err != nil {
		return "", false, err
	}
	defer os.RemoveAll(profile)
	cmd := exec.CommandContext(ctx, bin,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--no-first-run", "--disable-sync", "--disable-extensions",
		"--user-data-dir="+profile, "--window-size=390,1400", "--hide-scrollbars",
		"--screenshot="+shot, "--dump-dom", url)
	cmd.Dir = profile // chromium may drop files in its working directory
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		// ExitCode is -1 for a process a signal ended.
		signalled := errors.As(err, &ee) && ctx.Err() == nil && ee.ExitCode() == -1
		return "", signalled, fmt.Errorf("%v\n%s", err, lastLines(stderr.String(), 10))
	}
	png, err := os.ReadFile(shot)
	if err != nil || len(png) < 1000 || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		return "", false, fmt.Errorf("no screenshot (%d bytes, %v)", len(png), err)
	}
	return stdout.String(), false, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

var titleRE = regexp.MustCompile(`<title>([^<]*)</title>`)

// TestBrowserRunsNoScript loads pages of the hostile site in a real browser
// from a loopback server. Every payload in it, had it been injected, would
// set the title to PWNED or mark the body with data-pwned. A control page
// with a plain inline script shows that scripts do run in this browser, so
// the absence of the marks means something.
func TestBrowserRunsNoScript(t *testing.T) {
	bin := browser.Chromium(t)
	in := hostileInput(t)
	out, _ := buildFixture(t, in)

	var mu sync.Mutex
	var requests []string
	files := http.FileServer(http.Dir(out))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests = append(requests, r.URL.Path)
		mu.Unlock()
		files.ServeHTTP(w, r)
	}))
	defer srv.Close()
	// The control runs the same script a payload would, with no CSP, from
	// its own server so its favicon request does not count below.
	control := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!DOCTYPE html><html><head><title>control</title></head><body>` + pwnScript + `</body></html>`))
	}))
	defer control.Close()

	// Mallory's first match carries hostile moves; the one with an analysis
	// carries a hostile engine's grades.
	var hostileMatch, hostileGrades, hostileTalk string
	for _, s := range in.States {
		switch {
		case s == nil || s.First != mallory.PublicKey():
		case len(s.Reveals) > 0:
			hostileTalk = s.Match // comments and revealed reasoning
		case in.Analyses[s.Match] != nil:
			hostileGrades = s.Match
		case hostileMatch == "":
			hostileMatch = s.Match
		}
	}
	shots := os.Getenv("VESPER_SCREENSHOT_DIR") // keep them to look at
	if shots == "" {
		shots = t.TempDir()
	}
	cases := []struct {
		name, base, path, title string
		pwned                   bool
	}{
		{"control", control.URL, "/", "PWNED", true},
		// "/": http.FileServer redirects /index.html there.
		{"index", srv.URL, "/", "Board games over Nostr · vesper", false},
		{"match", srv.URL, "/m/" + hostileMatch + ".html", "", false},
		{"analysed match", srv.URL, "/m/" + hostileGrades + ".html", "", false},
		{"talk match", srv.URL, "/m/" + hostileTalk + ".html", "", false},
		{"models", srv.URL, "/models.html", "Ladder of models · vesper", false},
	}
	t.Run("pages", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel() // two browsers at a time keep this test to a few seconds
				dom := loadPage(t, bin, c.base+c.path, filepath.Join(shots, c.name+".png"))
				m := titleRE.FindStringSubmatch(dom)
				if m == nil {
					t.Fatalf("no title in the DOM of %s:\n%s", c.path, lastLines(dom, 5))
				}
				title := m[1]
				gotPwned := strings.Contains(title, "PWNED") || strings.Contains(dom, "data-pwned=")
				if gotPwned != c.pwned {
					t.Errorf("%s: pwned = %v, want %v (title %q)", c.path, gotPwned, c.pwned, title)
				}
				if c.title != "" && title != c.title {
					t.Errorf("%s: title %q, want %q", c.path, title, c.title)
				}
				if c.name != "index" && c.name != "control" && !strings.Contains(dom, "&lt;script&gt;") {
					t.Errorf("%s: the escaped payload is not in the DOM as text", c.path)
				}
			})
		}
	})
	mu.Lock()
	defer mu.Unlock()
	// Only the pages themselves and the site's two style sheets were
	// fetched: no favicon, no image, nothing a payload could have pulled
	// in. The sheets were fetched: the CSP lets them load ('self').
	want := map[string]bool{"/style.css": true, "/game.css": true}
	for _, c := range cases[1:] {
		want[c.path] = true
	}
	got := map[string]bool{}
	for _, p := range requests {
		got[p] = true
		if !want[p] {
			t.Errorf("the browser requested %s", p)
		}
	}
	for _, sheet := range []string{"/style.css", "/game.css"} {
		if !got[sheet] {
			t.Errorf("the browser never requested %s", sheet)
		}
	}
	t.Logf("screenshots in %s", shots)
}

package site

import (
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vesper/conformance/interop"
	"vesper/internal/browser"
	"vesper/internal/testkit"
)

// axeSource reads axe-core's bundle, installed with the interop clients
// (`npm ci --prefix conformance/interop`, pinned by its package-lock.json).
// The test skips without it unless VESPER_REQUIRE_INTEROP or
// VESPER_REQUIRE_BROWSER is set (.ci/run sets both).
func axeSource(t *testing.T) string {
	t.Helper()
	path := filepath.Join(interop.Dir(), "node_modules", "axe-core", "axe.min.js")
	src, err := os.ReadFile(path)
	if err == nil {
		return string(src)
	}
	msg := fmt.Sprintf("axe-core not installed (%v): run `npm ci --prefix conformance/interop`", err)
	if errors.Is(err, os.ErrNotExist) && os.Getenv("VESPER_REQUIRE_INTEROP") == "" && os.Getenv("VESPER_REQUIRE_BROWSER") == "" {
		t.Skip(msg)
	}
	t.Fatal(msg)
	return ""
}

// smallTargets lists the links outside lines of text (the site's nav, the
// skip link, the replay's step links) shown and smaller than 24 by 24 px.
const smallTargets = `[...document.querySelectorAll("header nav a, .skip, .stepnav a, .steps > p > a, .steps section > p > a")]
  .map(a => [a, a.getBoundingClientRect()]).filter(([a, r]) => a.getClientRects().length > 0 && (r.width < 24 || r.height < 24))
  .map(([a, r]) => a.textContent.trim() + " " + r.width.toFixed(0) + "×" + r.height.toFixed(0))`

// axeViolation is what the test reads of one of axe's violations.
type axeViolation struct {
	ID, Impact, Help string
	Nodes            []struct {
		Target         []any  `json:"target"`
		FailureSummary string `json:"failureSummary"`
	}
}

// runAxe injects axe-core into the loaded page through DevTools (the
// page's CSP forbids every script, so the browser is told to bypass it)
// and runs every rule axe enables by default and target-size (WCAG 2.2's
// 2.5.8: targets of at least 24 px, or spaced as if they were), which
// axe leaves off by default.
func runAxe(t *testing.T, br *browser.Browser, axe string) []axeViolation {
	t.Helper()
	var r struct {
		Result struct {
			Value []axeViolation `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	br.Call(t, "Runtime.evaluate", map[string]any{"expression": axe, "returnByValue": true}, nil)
	br.Call(t, "Runtime.evaluate", map[string]any{
		"expression": `axe.run(document, {resultTypes: ["violations"], rules: {"target-size": {enabled: true}}}).then(r => r.violations.map(v =>
			({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map(n => ({target: n.target, failureSummary: n.failureSummary}))})))`,
		"awaitPromise": true, "returnByValue": true,
	}, &r)
	if r.ExceptionDetails != nil {
		t.Fatalf("axe failed: %s", r.ExceptionDetails.Text)
	}
	return r.Result.Value
}

// TestAxe runs axe-core in headless Chromium over one page of every kind
// the build writes (everyKindSite: the index, a game of each game kind, a
// game with hostile talk and a fallback move, a game with no moves, a
// player, each leaderboard, the ladder of models, a head-to-head series,
// the how-to, the protocol, each archive), at 1280 and 390 px, in the
// light and the dark colour scheme: no violation of any impact (issues 26
// and 37), and the links outside text at least 24 px each way.
func TestAxe(t *testing.T) {
	testkit.QuickLoopSkips(t)
	bin := browser.Chromium(t)
	axe := axeSource(t)
	out, pages := everyKindSite(t)
	srv := httptest.NewServer(staticFiles(out))
	defer srv.Close()
	br := browser.Start(t, bin)
	br.Call(t, "Page.setBypassCSP", map[string]any{"enabled": true}, nil)

	for _, scheme := range []string{"light", "dark"} {
		br.Call(t, "Emulation.setEmulatedMedia", map[string]any{
			"features": []map[string]string{{"name": "prefers-color-scheme", "value": scheme}}}, nil)
		for _, width := range []int{1280, 390} {
			for _, p := range pages {
				br.Open(t, srv.URL+"/"+p.rel, width)
				var small []string
				br.Eval(t, smallTargets, &small)
				for _, s := range small {
					t.Errorf("%s (%d px): target under 24 px: %s", p.name, width, s)
				}
				for _, v := range runAxe(t, br, axe) {
					var where []string
					for _, n := range v.Nodes {
						where = append(where, fmt.Sprint(n.Target)+": "+strings.ReplaceAll(n.FailureSummary, "\n", " "))
					}
					msg := fmt.Sprintf("%s (%s, %d px): %s [%s] %s\n\t%s", p.name, scheme, width, v.ID, v.Impact, v.Help, strings.Join(where, "\n\t"))
					t.Error(msg) // any impact (issue 37): minor and moderate too
				}
			}
		}
	}
}

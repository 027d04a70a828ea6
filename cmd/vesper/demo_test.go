package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/analysis"
	"vesper/internal/browser"
	"vesper/internal/testkit"
	"vesper/nostr"
	"vesper/nostr/relay"
)

// TestDemo is the README's first command: a whole game on an embedded
// relay, final by both signatures, and the site built.
func TestDemo(t *testing.T) {
	data := t.TempDir()
	r := vesper(t, nil, nil, "demo", "--data", data)
	if r.code != 0 {
		t.Fatalf("demo: status %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"alice challenged bob", "game over: first wins by checkmate", "result final by signatures",
		"reasoning revealed after the final result: 7 of 7 entries verified"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("demo output lacks %q:\n%s", want, r.stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(data, "site", "index.html")); err != nil {
		t.Errorf("no site: %v", err)
	}
	// The finished game is graded (issue 18): analysis.json beside the
	// page, and the page shows the evaluation graph and the grades.
	ms, _ := filepath.Glob(filepath.Join(data, "site", "m", "*.analysis.json"))
	if len(ms) != 1 {
		t.Fatalf("%d analysis.json files, want the game's", len(ms))
	}
	raw, err := os.ReadFile(ms[0])
	if err != nil {
		t.Fatal(err)
	}
	g, err := analysis.Parse(raw)
	if err != nil || g.Status != analysis.StatusDone || len(g.Moves) != len(demoGame) {
		t.Fatalf("analysis.json: %+v, %v; want done with %d moves", g, err, len(demoGame))
	}
	page, err := os.ReadFile(strings.TrimSuffix(ms[0], ".analysis.json") + ".html")
	if err != nil || !strings.Contains(string(page), `<svg class="evalgraph"`) {
		t.Errorf("the match page shows no evaluation graph (%v)", err)
	}
	// Issue 27: the site shows every move's reasoning verified, the
	// comments beside the moves, and the ladder of models lists the two
	// agents by the models their profiles say.
	if n := strings.Count(string(page), `class="rs rs-verified"`); n != len(demoGame) {
		t.Errorf("the match page shows %d verified reasonings, want %d", n, len(demoGame))
	}
	if !strings.Contains(string(page), "Checkmate: f7 was weak.") {
		t.Error("the match page does not show the comments")
	}
	if _, err := os.Stat(strings.TrimSuffix(ms[0], ".analysis.json") + ".reasoning.json"); err != nil {
		t.Errorf("no reasoning.json: %v", err)
	}
	models, err := os.ReadFile(filepath.Join(data, "site", "models.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"<bdi>demo-model-a</bdi>", "<bdi>demo-model-b</bdi>"} {
		if !strings.Contains(string(models), m) {
			t.Errorf("the ladder of models lacks %s", m)
		}
	}
	// Issue 26: the demo's game page opens on the board, on a desktop and
	// on a phone. A subtest, so that a host without Chromium skips only it.
	t.Run("BoardFirstInBrowser", func(t *testing.T) {
		checkBoardFirst(t, filepath.Join(data, "site"), 1)
	})
}

// checkBoardFirst checks every game page of the site in dir in headless
// Chromium at each of browser.Screens (board top within the first
// screen, no broken words, no small targets), and that there are at
// least want of them.
func checkBoardFirst(t *testing.T, dir string, want int) {
	t.Helper()
	bin := browser.Chromium(t)
	pages, worst := browser.CheckSiteGamePages(t, bin, dir)
	if pages < want {
		t.Fatalf("%d game pages in %s, want at least %d", pages, dir, want)
	}
	t.Logf("%d game pages; the lowest board top: %.0f px at 1280x800, %.0f px at 390x844", pages, worst[1280], worst[390])
}

var servingLine = regexp.MustCompile(`serving: relay (ws://\S+), house ([0-9a-f]{64})`)

// TestDemoServeHouseAcceptsInvitation: with --serve the relay and the
// daemon stay up after the game, and the house accepts at once a
// challenge addressed to it (PROTOCOL.md section 3), so an agent can play
// it (the README's "play the house").
func TestDemoServeHouseAcceptsInvitation(t *testing.T) {
	cmd := exec.Command(binPath, "demo", "--serve", "--data", t.TempDir())
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("demo --serve after SIGINT: %v", err)
			}
		case <-time.After(testkit.Scale(time.Minute)):
			_ = cmd.Process.Kill()
			t.Errorf("demo --serve did not stop within %v of SIGINT", testkit.Scale(time.Minute))
		}
	}()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var url, house string
	deadline := time.After(testkit.Scale(2 * time.Minute))
	for url == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("demo --serve exited before serving")
			}
			if m := servingLine.FindStringSubmatch(l); m != nil {
				url, house = m[1], m[2]
			}
		case <-deadline:
			t.Fatal("demo --serve printed no serving line within 2 minutes")
		}
	}
	go func() {
		for range lines { // keep the pipe drained
		}
	}()

	agent := nostr.GenerateKey()
	ch := nostr.NewChallenge(nostr.GameChess, house, time.Now().Unix())
	if err := agent.Sign(ch); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(time.Minute))
	defer cancel()
	if ok := relay.Accepted(relay.Publish(ctx, []string{url}, ch, testkit.Scale(10*time.Second))); len(ok) == 0 {
		t.Fatal("the demo's relay refused the challenge")
	}
	for {
		got, err := relay.Fetch(ctx, []string{url}, []gn.Filter{{Kinds: []int{nostr.KindAccept}, Tags: gn.TagMap{"g": {ch.ID}}}}, testkit.Scale(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range got {
			if r.Event.PubKey == house {
				return
			}
		}
		select {
		case <-ctx.Done():
			t.Fatal("the house did not accept a challenge addressed to it within a minute")
		case <-time.After(200 * time.Millisecond): // the polling cadence
		}
	}
}

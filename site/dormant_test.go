package site

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vesper/match"
)

// idleForTest stands in for the daemon's policy (daemon/dormant.go), which
// this package cannot import: a game in progress is idle since its clock
// ran out.
func idleForTest(s *match.State) int64 {
	if !s.Accepted || s.Over || s.Final {
		return 0
	}
	return s.Deadline()
}

// TestAbandonedGames (issue 28): a game whose clock ran out more than the
// daemon's grace ago is shown as abandoned in the archive and counted on
// the index and its players' pages, not listed among the games waiting
// for a claim; the house's own game never is.
func TestAbandonedGames(t *testing.T) {
	read := func(out, path string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(path)))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	f := newFixture(t)
	id := f.ids["active"] // bob's clock ran out at 2026-05-29 22:45 UTC, two days before now
	link := `href="m/` + id + `.html"`
	f.in.IdleSince, f.in.DormantAfter = idleForTest, 86400
	out, _ := buildFixture(t, f.in)

	index := read(out, "index.html")
	if strings.Contains(index, `id="clock-out"`) || strings.Contains(index, link) {
		t.Error("the index lists the abandoned game among those waiting for a claim")
	}
	if !strings.Contains(index, "with 1 abandoned game (the clock ran out over a day ago and no one claimed it)") {
		t.Error("the index does not count the abandoned game")
	}
	archive := read(out, "archive/chess-1.html")
	if !strings.Contains(archive, `href="../m/`+id+`.html"`) ||
		!strings.Contains(archive, "abandoned: the clock ran out on 2026-05-29 22:45 UTC and no one claimed it") {
		t.Errorf("the chess archive does not show the abandoned game:\n%s", archive)
	}
	for _, pk := range []string{alice.PublicKey(), bob.PublicKey()} {
		page := read(out, "p/"+pk+".html")
		if !strings.Contains(page, "1 abandoned game: the clock ran out over a day ago and no one claimed it.") ||
			!strings.Contains(page, "<td>abandoned</td>") {
			t.Errorf("player %s: the abandoned game is not counted", pk[:8])
		}
	}

	// The house's own game is claimed, never abandoned: with bob as the
	// house it waits for the claim like any game whose clock ran out.
	f.in.Daemon = bob.PublicKey()
	out, _ = buildFixture(t, f.in)
	if index := read(out, "index.html"); !strings.Contains(index, `id="clock-out"`) || !strings.Contains(index, link) {
		t.Error("the house's own game is shown as abandoned")
	}
	// Within the grace it waits for a claim too.
	f.in.Daemon, f.in.DormantAfter = daemon.PublicKey(), 3*86400
	out, _ = buildFixture(t, f.in)
	if index := read(out, "index.html"); !strings.Contains(index, link) || strings.Contains(index, "abandoned game") {
		t.Error("a game within the grace is shown as abandoned")
	}
}

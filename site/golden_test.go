package site

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current output")

// buildFixture builds the fixture site into a fresh directory and returns
// the published path.
func buildFixture(t *testing.T, in Input) (string, Stats) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "site")
	st, err := Build(in, out)
	if err != nil {
		t.Fatal(err)
	}
	return out, st
}

// TestGolden compares one page of each type, built from real signed events,
// with testdata/golden. Review the diff after `go test ./site -update`.
func TestGolden(t *testing.T) {
	f := newFixture(t)
	out, _ := buildFixture(t, f.in)
	m := func(name, ext string) string { return "m/" + f.ids[name] + ext }
	pages := []struct{ golden, path string }{
		{"index.html", "index.html"},
		{"how-to-play.html", "how-to-play.html"},
		{"ratings-chess.html", "ratings/chess.html"},
		{"ratings-gomoku.html", "ratings/gomoku.html"},
		{"ratings.json", "ratings.json"},
		{"models.html", "models.html"},
		{"models.json", "models.json"},
		{"matches.json", "matches.json"},
		{"player-alice.html", "p/" + alice.PublicKey() + ".html"},
		{"player-daemon.html", "p/" + daemon.PublicKey() + ".html"},
		{"player-carol.html", "p/" + carol.PublicKey() + ".html"},
		{"match-mate.html", m("mate", ".html")},
		{"match-mate.json", m("mate", ".json")},
		{"match-mate.pgn", m("mate", ".pgn")},
		{"match-mate.analysis.json", m("mate", ".analysis.json")},
		{"match-five.analysis.json", m("five", ".analysis.json")},
		{"match-five.html", m("five", ".html")},
		{"match-five.json", m("five", ".json")},
		{"match-timeout.html", m("timeout", ".html")},
		{"match-ruling.html", m("ruling", ".html")},
		{"match-ruling.pgn", m("ruling", ".pgn")},
		{"match-active.html", m("active", ".html")},
		{"match-active.json", m("active", ".json")},
		{"match-open.html", m("open", ".html")},
		{"match-invite.html", m("invite", ".html")},
		{"match-expired.html", m("expired", ".html")},
	}
	for _, p := range pages {
		t.Run(p.golden, func(t *testing.T) {
			got, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(p.path)))
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "golden", p.golden)
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./site -run TestGolden -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from %s (%d vs %d bytes); first difference at byte %d:\n got: %q\nwant: %q",
					p.path, golden, len(got), len(want), firstDiff(got, want), excerpt(got, firstDiff(got, want)), excerpt(want, firstDiff(got, want)))
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func excerpt(b []byte, at int) string {
	lo, hi := max(0, at-60), min(len(b), at+60)
	return string(b[lo:hi])
}

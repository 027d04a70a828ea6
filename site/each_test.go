package site

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vesper/match"
	"vesper/ratings"
)

// TestBuildEachEqualsBuild: folding and rendering one match at a time gives
// Build's bytes, with the forecast right (every match folded once), absent
// or wrong (built again from what the folds said, so each match is folded
// twice), and with analyses held or loaded.
func TestBuildEachEqualsBuild(t *testing.T) {
	f := newFixture(t)
	_, want := buildFixture(t, f.in)
	ids := []string{strings.Repeat("0", 64)} // a challenge that holds no valid match
	for _, s := range f.in.States {
		ids = append(ids, s.Match)
	}
	right := RatingGames(f.in.States)
	wrong := map[string][]ratings.Game{}
	for kind, games := range right {
		wrong[kind] = slices.Clone(games[1:])
	}
	for _, tc := range []struct {
		name     string
		forecast map[string][]ratings.Game
		a        *analyses
		folds    int
	}{
		{"forecast right", right, &analyses{}, 1},
		{"forecast right, analyses loaded", right, &analyses{byStatus: true}, 1},
		{"no forecast", nil, &analyses{}, 2},
		{"a result missing from the forecast", wrong, &analyses{byStatus: true, held: []string{"mate"}}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := &loader{f: f}
			counts := map[string]int{}
			load := func(id string) (s *match.State, seen map[string]int64, err error) {
				l.mu.Lock()
				counts[id]++
				l.mu.Unlock()
				return l.load(id)
			}
			in := tc.a.input(f)
			in.RatingGames = tc.forecast
			out := filepath.Join(t.TempDir(), "site")
			got, err := BuildEach(in, ids, load, out)
			if err != nil {
				t.Fatal(err)
			}
			compareFull(t, f.in, out)
			if got.Passes != tc.folds {
				t.Errorf("%d passes, want %d", got.Passes, tc.folds)
			}
			if got.Pages != want.Pages || got.Written != want.Written || got.Skipped != want.Skipped {
				t.Errorf("stats %+v, want Build's %+v", got, want)
			}
			for _, id := range ids {
				if counts[id] != tc.folds {
					t.Errorf("match %s folded %d times, want %d", id[:8], counts[id], tc.folds)
				}
			}
		})
	}
}

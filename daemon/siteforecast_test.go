package daemon

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
	"vesper/store"
)

// TestSiteBuildForecastsUnsettledMatches: `vesper site build` on a store
// whose summaries do not say what the fold says (events stored without a
// daemon, so no summary at all; then a summary an older fold wrote, with
// another result) folds those matches for its forecast of the ratings and
// renders every page once, not twice.
func TestSiteBuildForecastsUnsettledMatches(t *testing.T) {
	ctx := context.Background()
	alice, bob, carol := testkit.Key("alice"), testkit.Key("bob"), testkit.Key("carol")
	st, err := store.Open(filepath.Join(t.TempDir(), "vesper.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Now().Unix()
	put := func(evs ...*nostr.Event) {
		t.Helper()
		in := make([]store.Incoming, 0, len(evs))
		for _, ev := range evs {
			in = append(in, store.Incoming{Event: ev, SeenAt: now})
		}
		if _, err := st.PutEvents(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	// Two finished gomoku games, each won by its first player.
	var finals []*match.State
	for i, pair := range [][2]nostr.SecretKey{{alice, bob}, {bob, carol}} {
		m := testkit.NewMatch(pair[0], pair[1], "gomoku", "", now-5000+int64(i)*1000)
		m.Accept(now - 4990 + int64(i)*1000)
		end := m.Play([]string{"h8", "a1", "i8", "a2", "j8", "a3", "k8", "a4", "l8"}, now-4980+int64(i)*1000, 10)
		s, err := match.Fold(m.ID, m.Events, nil)
		if err != nil {
			t.Fatal(err)
		}
		m.Result(pair[0], s.Computed(), end+1)
		m.Result(pair[1], s.Computed(), end+2)
		if s, err = match.Fold(m.ID, m.Events, nil); err != nil || !s.Final {
			t.Fatalf("the game is not final: %v", err)
		}
		finals = append(finals, s)
		put(m.Events...)
	}
	build := func(t *testing.T) {
		t.Helper()
		stats, err := BuildSite(ctx, st, filepath.Join(t.TempDir(), "site"), "", true, now)
		if err != nil {
			t.Fatal(err)
		}
		if stats.Passes != 1 {
			t.Errorf("the build folded and rendered the store %d times, want once", stats.Passes)
		}
	}
	t.Run("no summaries", build)

	// The first game's summary as an older fold wrote it, final with the
	// other result; the second's as this fold writes it.
	for i, s := range finals {
		result, version := s.Result, match.FoldVersion
		if i == 0 {
			result, version = match.Second, match.FoldVersion-1
		}
		raw, err := json.Marshal(map[string]any{"result": result, "final_event": s.FinalEvent})
		if err != nil {
			t.Fatal(err)
		}
		sum := store.Summary{Match: s.Match, Game: s.Kind, First: s.First, Second: s.Second, Status: "over",
			Final: true, UpdatedAt: now, JSON: raw, FoldVersion: version}
		if err := st.PutSummary(ctx, sum); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := st.UnsettledMatches(ctx, match.FoldVersion); err != nil || len(got) != 1 || got[0] != finals[0].Match {
		t.Fatalf("UnsettledMatches = %v, %v; want the first game's only", got, err)
	}
	t.Run("a stale summary", build)
}

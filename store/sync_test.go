package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vesper/nostr"
)

func TestSyncQueries(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	if err := s.PrepareSync(ctx); err != nil {
		t.Fatal(err)
	}
	k := nostr.GenerateKey()
	final := signed(t, k, nostr.NewChallenge("chess", "", 1000))
	open := signed(t, k, nostr.NewChallenge("gomoku", "", 1001))
	move := signed(t, k, nostr.NewMove(open.ID, 1, "h8", 1002))
	// A move naming a match whose challenge is not stored: revealed, to be
	// asked about.
	orphanMatch := signed(t, k, nostr.NewChallenge("chess", "", 999)).ID
	orphan := signed(t, k, nostr.NewMove(orphanMatch, 1, "e2e4", 1003))
	var in []Incoming
	for _, ev := range []*nostr.Event{final, open, move, orphan} {
		in = append(in, Incoming{Event: ev, Relay: "wss://r", SeenAt: 2000})
	}
	if _, err := s.PutEvents(ctx, in); err != nil {
		t.Fatal(err)
	}
	for _, sum := range []Summary{
		{Match: final.ID, Game: "chess", First: k.PublicKey(), Status: "over", Final: true, JSON: []byte(`{}`)},
		{Match: open.ID, Game: "gomoku", First: k.PublicKey(), Status: "active", JSON: []byte(`{}`)},
	} {
		if err := s.PutSummary(ctx, sum); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("stamps", func(t *testing.T) {
		got, err := s.Stamps(ctx, []int{nostr.KindChallenge})
		if err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(got, func(a, b Stamp) int { return int(a.CreatedAt - b.CreatedAt) })
		want := []Stamp{{final.ID, 1000}, {open.ID, 1001}}
		if !slices.Equal(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
		if got, _ := s.Stamps(ctx, nil); len(got) != 0 {
			t.Fatalf("no kinds: %v", got)
		}
	})
	t.Run("open matches", func(t *testing.T) {
		got, err := s.OpenMatches(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{open.ID, orphanMatch}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("got %v, want %v (the open match and the orphan's, not the final one)", got, want)
		}
	})
	t.Run("known ids", func(t *testing.T) {
		// More ids than one query takes.
		var ask []string
		for i := range 2*knownChunk + 3 {
			ask = append(ask, signed(t, k, nostr.NewChallenge("chess", "", int64(i))).ID)
		}
		ask = append(ask, move.ID, final.ID)
		got, err := s.KnownIDs(ctx, ask)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || !got[move.ID] || !got[final.ID] {
			t.Fatalf("got %v, want the move and the final challenge", got)
		}
	})
}

// TestStampsWithoutIndex: before PrepareSync, Stamps still answers.
func TestStampsWithoutIndex(t *testing.T) {
	s := openTemp(t)
	k := nostr.GenerateKey()
	ev := signed(t, k, nostr.NewChallenge("chess", "", 7))
	if _, err := s.PutEvent(t.Context(), ev, nil, "", 8); err != nil {
		t.Fatal(err)
	}
	got, err := s.Stamps(t.Context(), []int{nostr.KindChallenge})
	if err != nil || !slices.Equal(got, []Stamp{{ev.ID, 7}}) {
		t.Fatalf("got %v, %v", got, err)
	}
}

func TestSyncMarks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "vesper.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := t.Context()
	if at, err := s.SyncMark(ctx, "wss://a", SyncMarkDone); err != nil || at != 0 {
		t.Fatalf("before any: %d, %v; want 0", at, err)
	}
	// A reader of a store without the table yet reads 0 too.
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	if at, err := ro.SyncMark(ctx, "wss://a", SyncMarkDone); err != nil || at != 0 {
		t.Fatalf("read-only, before any: %d, %v; want 0", at, err)
	}
	ro.Close()
	for _, at := range []int64{500, 300} { // never backwards
		if err := s.SetSyncMark(ctx, "wss://a", SyncMarkDone, at); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SetSyncMark(ctx, "wss://a", SyncMarkFullScan, 100); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		relay, what string
		want        int64
	}{
		{"wss://a", SyncMarkDone, 500},
		{"wss://a", SyncMarkFullScan, 100},
		{"wss://b", SyncMarkDone, 0},
	} {
		if at, err := s.SyncMark(ctx, c.relay, c.what); err != nil || at != c.want {
			t.Errorf("%s %s: %d, %v; want %d", c.relay, c.what, at, err, c.want)
		}
	}
	if err := s.SetSyncMark(ctx, "", SyncMarkDone, 1); err == nil {
		t.Fatal("a mark without a relay was accepted")
	}
}

// TestPrepareSync: after PrepareSync, Stamps reads only its covering
// index, not the rows (whose raw events are most of the file).
func TestPrepareSync(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	for range 2 { // idempotent
		if err := s.PrepareSync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := s.r.QueryContext(ctx, `EXPLAIN QUERY PLAN `+stampsQuery(2, true), 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	plan := ""
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan += detail + "\n"
	}
	if !strings.Contains(plan, "COVERING INDEX events_kind_stamp") {
		t.Fatalf("Stamps' plan does not use the covering index:\n%s", plan)
	}
}

// The windows cover every created_at once, each holding at most max
// events unless one hour holds more.
func TestStampWindows(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	k := nostr.GenerateKey()
	var in []Incoming
	base := int64(1_700_000_000 / 3600 * 3600)
	for h := range 10 {
		for i := range 3 {
			ev := signed(t, k, nostr.NewChallenge(nostr.GameChess, "", base+int64(h)*3600+int64(i)))
			in = append(in, Incoming{Event: ev, SeenAt: 1})
		}
	}
	if _, err := s.PutEvents(ctx, in); err != nil {
		t.Fatal(err)
	}
	kinds := []int{nostr.KindChallenge}
	ws, err := s.StampWindows(ctx, kinds, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 5 || ws[0].Since != 0 || ws[len(ws)-1].Until != 0 {
		t.Fatalf("windows %+v: want 5 of two hours each, open at both ends", ws)
	}
	total := 0
	for i, w := range ws {
		got, err := s.StampsIn(ctx, kinds, w)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) > 7 {
			t.Errorf("window %d holds %d events, max 7", i, len(got))
		}
		if i > 0 && w.Since != ws[i-1].Until+1 {
			t.Errorf("window %d starts at %d, after %d", i, w.Since, ws[i-1].Until)
		}
		total += len(got)
	}
	if total != len(in) {
		t.Errorf("the windows hold %d events, want %d", total, len(in))
	}
}

// PrepareSync builds the sync's index within a small page cache (issue
// 38): SQLite sizes the build's sort by the cache, and at the writer's
// own the sort and the cache filled with the events table took a daemon's
// first start on a store without the index to nearly 200 MB at 10,000
// matches (BenchmarkPrepareSyncMemory measures it). The writer's cache
// is back once the index is built.
func TestPrepareSyncCache(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	var during int64
	indexBuildHook = func(tx *sql.Tx) {
		if err := tx.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&during); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(func() { indexBuildHook = nil })
	if err := s.PrepareSync(ctx); err != nil {
		t.Fatal(err)
	}
	if during != -indexCacheKiB || indexCacheKiB > 8<<10 {
		t.Errorf("the writer's cache while building the index: %d, want -%d (at most 8 MiB)", during, indexCacheKiB)
	}
	var after int64
	if err := s.w.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&after); err != nil {
		t.Fatal(err)
	}
	if after != -writerCacheKiB {
		t.Errorf("the writer's cache after the build: %d, want %d", after, -writerCacheKiB)
	}
}

package daemon

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/arbiter"
	"vesper/internal/benchfx"
	"vesper/internal/testkit"
	"vesper/nostr"
	"vesper/relayd"
	"vesper/store"
)

// BenchmarkRestartSync is issue 12's restart: the store holds a season of
// N matches (the scale fixture, -vesper.scale), its last sync of the relay
// was 10 minutes ago, and meanwhile 200 events reached the relay that a
// cursor would miss: moves of open matches stamped in the season (long
// before the cursor) and new matches. Measured: the sync until every new
// event is stored and its matches re-folded, against one relay with NIP-77
// (relayd in memory) and one without (relayd on SQLite, whose tag index
// serves the fallback's "#g" queries), and the bytes the relay read and
// wrote for it.
//
//	go test ./daemon -run '^$' -bench RestartSync -benchtime 1x -timeout 2h -vesper.scale 1000
func BenchmarkRestartSync(b *testing.B) {
	benchfx.EachSize(b, func(b *testing.B, fx benchfx.Fixture) {
		season := benchfx.ReadEvents(b, fx.EventsPath())
		base := withOpen(b, rebuiltStore(b, fx), fx.Meta.Matches/10)
		open, err := openMatchesOf(base)
		if err != nil {
			b.Fatal(err)
		}
		fresh := lateEvents(b, open, 200)
		info := fmt.Sprintf("%d matches, %d events, %d open; %d new events", fx.Meta.Matches, len(season), len(open), len(fresh))
		for _, variant := range []string{"nip77", "fallback"} {
			b.Run(variant, func(b *testing.B) { b.Log(info); benchRestartSync(b, variant, base, season, fresh) })
		}
	})
}

func benchRestartSync(b *testing.B, variant, base string, season, fresh []*nostr.Event) {
	opts := relayd.Options{}
	if variant == "fallback" {
		opts = relayd.Options{NoNegentropy: true, DBPath: filepath.Join(b.TempDir(), "relay.db")}
	}
	r, err := relayd.Start(context.Background(), opts)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	loaded := time.Now()
	all := append(slices.Clone(season), fresh...)
	if err := r.Seed(context.Background(), all); err != nil {
		b.Fatal(err)
	}
	b.Logf("relay loaded with %d events in %v", len(all), time.Since(loaded).Round(time.Millisecond))
	for range b.N {
		b.StopTimer()
		path := filepath.Join(b.TempDir(), "vesper.db")
		benchfx.CopyFile(b, base, path)
		st, err := store.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		n := newNode(st, nostr.SecretKey{}, []string{r.URL()}, arbiter.Config{}, discardLog())
		now := time.Now().Unix()
		for _, what := range []string{store.SyncMarkDone, store.SyncMarkFullScan} {
			if err := st.SetSyncMark(context.Background(), gn.NormalizeURL(r.URL()), what, now-600); err != nil {
				b.Fatal(err)
			}
		}
		read0, written0 := r.Traffic()
		b.StartTimer()
		start := time.Now()
		rep, err := n.SyncOnce(context.Background(), SyncRequest{RelayTimeout: time.Hour})
		if err != nil {
			b.Fatal(err)
		}
		el := time.Since(start)
		b.StopTimer()
		read1, written1 := r.Traffic()
		b.Logf("%+v", rep)
		ids := make([]string, len(fresh))
		for i, ev := range fresh {
			ids[i] = ev.ID
		}
		known, err := st.KnownIDs(context.Background(), ids)
		if err != nil || len(known) != len(fresh) {
			b.Fatalf("%d of the %d new events stored (%v)", len(known), len(fresh), err)
		}
		st.Close()
		b.ReportMetric(el.Seconds(), "s")
		b.ReportMetric(float64(read1-read0)/1e6, "MB-to-relay")
		b.ReportMetric(float64(written1-written0)/1e6, "MB-from-relay")
	}
}

// rebuiltStore is the fixture's store with its summaries, as the daemon
// left it before going down: cached beside the fixture.
func rebuiltStore(b *testing.B, fx benchfx.Fixture) string {
	b.Helper()
	path := filepath.Join(fx.Dir, "synced.db")
	if _, err := os.Stat(path); err == nil {
		// The index PrepareSync makes is built once, as on an operator's
		// first start with this version, and not timed.
		st, err := store.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		if err := st.PrepareSync(context.Background()); err != nil {
			b.Fatal(err)
		}
		return path
	}
	foldFixture(b, fx, path, true)
	return path
}

// withOpen is a copy of the store at path where only the first open
// matches are not final (issue 12's figure: 10,000 stored, 1,000 open),
// the summaries of the others marked final as if they had finished.
func withOpen(b *testing.B, path string, open int) string {
	b.Helper()
	dst := filepath.Join(b.TempDir(), "base.db")
	benchfx.CopyFile(b, path, dst)
	db, err := sql.Open("sqlite", dst)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE summaries SET final = 1 WHERE final = 0 AND match NOT IN
		(SELECT match FROM summaries WHERE final = 0 ORDER BY match LIMIT ?)`, open); err != nil {
		b.Fatal(err)
	}
	return dst
}

func openMatchesOf(path string) ([]string, error) {
	st, err := store.OpenReadOnly(path)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return st.OpenMatches(context.Background())
}

// lateEvents are n events a cursor misses: a move in each of the first
// n/2 open matches, stamped in the season (months before the cursor), and
// new matches of a challenge from an hour ago and its moves.
func lateEvents(b *testing.B, open []string, n int) []*nostr.Event {
	b.Helper()
	k := testkit.Key("late")
	var out []*nostr.Event
	for i, m := range open {
		if len(out) >= n/2 {
			break
		}
		out = append(out, testkit.Sign(k, nostr.NewMove(m, 200+i, "e2e4", benchfx.End-int64(i))))
	}
	t0 := time.Now().Unix() - 3600
	for i := 0; len(out) < n; i++ {
		m := testkit.NewMatch(testkit.Key(fmt.Sprintf("late-a%d", i)), testkit.Key(fmt.Sprintf("late-b%d", i)), "chess", "", t0+int64(i*100))
		out = append(out, m.Events...)
		if len(out) < n {
			out = append(out, m.Accept(t0+int64(i*100)+1))
		}
		for ply := 1; ply <= 8 && len(out) < n; ply++ {
			k := m.A
			if ply%2 == 0 {
				k = m.B
			}
			out = append(out, m.Move(k, ply, demoGame[(ply-1)%len(demoGame)], t0+int64(i*100+1+ply)))
		}
	}
	return out
}

package daemon

import (
	"bytes"
	"context"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"vesper/arbiter"
	"vesper/internal/benchfx"
	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
	"vesper/nostr/relay"
	"vesper/store"
)

// siteTree reads every file of a published site, the manifest and the card
// file included: the two builds must agree on those too.
func siteTree(t *testing.T, out string) map[string][]byte {
	t.Helper()
	root, err := filepath.EvalSymlinks(out)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestDaemonSiteFromChanges: the daemon's periodic build, after its first
// (full) one, re-renders from the matches it marked and gives the same
// bytes as `vesper site build` (siteFromStore) of the same store at the
// same time, given the same verdicts of the house on open challenges.
func TestDaemonSiteFromChanges(t *testing.T) {
	ctx := context.Background()
	house, alice, bob, carol := testkit.Key("house"), testkit.Key("alice"), testkit.Key("bob"), testkit.Key("carol")
	st, err := store.Open(filepath.Join(t.TempDir(), "vesper.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	logs := &testkit.Buffer{}
	n := newNode(st, house, nil, arbiter.Config{}, slog.New(slog.NewTextHandler(logs, nil)))
	now := time.Now().Unix()
	n.clock = func() int64 { return now }
	o := Options{SiteDir: filepath.Join(t.TempDir(), "site"), ListAll: true}

	send := func(t *testing.T, evs ...*nostr.Event) {
		t.Helper()
		batch := make([]relay.Received, 0, len(evs))
		for _, ev := range evs {
			batch = append(batch, relay.Received{Event: ev, Relay: "wss://test.invalid"})
		}
		if _, err := n.ingest(ctx, batch); err != nil {
			t.Fatal(err)
		}
	}
	// build runs the daemon's periodic build, waits for it, and compares
	// the site with a full build of the store into a fresh directory.
	build := func(t *testing.T, wantFull bool) {
		t.Helper()
		before := len(logLines(logs, "site built"))
		n.buildSiteLogged(ctx, o)
		<-siteOf(n).wait()
		built := logLines(logs, "site built")
		if len(built) != before+1 {
			t.Fatalf("no new \"site built\" line; log:\n%s", strings.Join(logLines(logs, ""), "\n"))
		}
		if got := strings.Contains(built[len(built)-1], "full=true"); got != wantFull {
			t.Errorf("full build %v, want %v: %s", got, wantFull, built[len(built)-1])
		}
		fresh := filepath.Join(t.TempDir(), "site")
		// BuildSite with the running house's verdicts on the open
		// challenges, which a build from the store alone cannot know.
		sh := n.siteShow(o, now)
		sh.analysing = false
		stats, err := buildFull(ctx, st, fresh, n.self, sh, now)
		if err != nil {
			t.Fatal(err)
		}
		// The stored summaries forecast the ratings right: one pass.
		if stats.Passes != 1 {
			t.Errorf("vesper site build folded the store %d times, want once", stats.Passes)
		}
		got, want := siteTree(t, o.SiteDir), siteTree(t, fresh)
		for rel, w := range want {
			if g, ok := got[rel]; !ok {
				t.Errorf("%s missing from the daemon's site", rel)
			} else if !bytes.Equal(g, w) {
				t.Errorf("%s differs from vesper site build", rel)
			}
		}
		for rel := range got {
			if _, ok := want[rel]; !ok {
				t.Errorf("%s only in the daemon's site", rel)
			}
		}
	}

	live := testkit.NewMatch(alice, bob, "chess", "", now-7200)
	live.Accept(now - 7100)
	last := live.Play([]string{"e2e4", "e7e5", "g1f3"}, now-7000, 60)
	done := testkit.NewMatch(bob, carol, "gomoku", "", now-5000)
	done.Accept(now - 4990)
	end := done.Play([]string{"h8", "a1", "i8", "a2", "j8", "a3", "k8", "a4", "l8"}, now-4980, 10)
	s, err := match.Fold(done.ID, done.Events, nil)
	if err != nil {
		t.Fatal(err)
	}
	done.Result(bob, s.Computed(), end+1)
	done.Result(carol, s.Computed(), end+2)
	open := testkit.NewMatch(carol, house, "chess", "", now-600)
	send(t, append(append(slices.Clone(live.Events), done.Events...), open.Events...)...)
	send(t, testkit.Sign(alice, &nostr.Event{Kind: nostr.KindProfile, CreatedAt: nostr.Timestamp(now - 9000),
		Content: `{"name":"Alice","bot":true}`}))

	t.Run("first build is full", func(t *testing.T) { build(t, true) })
	t.Run("nothing changed", func(t *testing.T) { build(t, false) })
	t.Run("moves, a new game, a late result", func(t *testing.T) {
		send(t, live.Move(bob, 4, "b8c6", last+60))
		fresh := testkit.NewMatch(bob, alice, "gomoku", "", now-300)
		fresh.Accept(now - 200)
		send(t, fresh.Events...)
		// A stray result on the finished game: ignored, but its page
		// lists it.
		send(t, done.Result(alice, s.Computed(), end+3))
		m := siteOf(n)
		m.mu.Lock()
		marked := len(m.marked)
		m.mu.Unlock()
		if marked != 3 {
			t.Errorf("%d matches marked, want 3 (node.keepAll must mark what it keeps)", marked)
		}
		build(t, false)
	})
	t.Run("later and renamed", func(t *testing.T) {
		now += 3 * 86400 // clocks run out, the open challenge is the house's to take
		send(t, testkit.Sign(carol, &nostr.Event{Kind: nostr.KindProfile, CreatedAt: nostr.Timestamp(now - 10),
			Content: `{"name":"Carol","bot":true}`}))
		build(t, false)
	})
	t.Run("restart", func(t *testing.T) {
		// A move kept after the last build, then the daemon restarts: the
		// new node has no marks, and its first build finds the match from
		// the store and folds only that one.
		send(t, live.Move(alice, 5, "f1c4", last+120))
		n = newNode(st, house, nil, arbiter.Config{}, slog.New(slog.NewTextHandler(logs, nil)))
		n.clock = func() int64 { return now }
		build(t, false)
		built := logLines(logs, "site built")
		if l := built[len(built)-1]; !strings.Contains(l, "changed=1 ") {
			t.Errorf("first build after the restart: %s; want changed=1", l)
		}
	})
}

// TestDaemonSiteBuildStops: a build whose context is cancelled ends
// without publishing and gives its marks back for the next one; and only
// one build runs at a time.
func TestDaemonSiteBuildStops(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "vesper.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	logs := &testkit.Buffer{}
	n := newNode(st, nostr.SecretKey{}, nil, arbiter.Config{}, slog.New(slog.NewTextHandler(logs, nil)))
	m := testkit.NewMatch(testkit.Key("alice"), testkit.Key("bob"), "chess", "", time.Now().Unix()-60)
	ev := m.Events[0]
	if _, err := n.ingest(context.Background(), []relay.Received{{Event: ev, Relay: "wss://test.invalid"}}); err != nil {
		t.Fatal(err)
	}
	o := Options{SiteDir: filepath.Join(t.TempDir(), "site")}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	n.buildSiteLogged(ctx, o)
	<-siteOf(n).wait()
	if got := logLines(logs, "site build stopped"); len(got) != 1 {
		t.Errorf("log %q: want one \"site build stopped\"", logLines(logs, ""))
	}
	if _, err := os.Lstat(o.SiteDir); err == nil {
		t.Error("a cancelled build published a site")
	}
	sm := siteOf(n)
	ids, first, ok := sm.start()
	if !ok || !first || !slices.Equal(ids, []string{m.ID}) {
		t.Errorf("after the cancelled build: start() = %v, %v, %v; want the marked match, a full build", ids, first, ok)
	}
	if _, _, again := sm.start(); again {
		t.Error("a second build started while one runs")
	}
	sm.finish(ids, true)
	if _, first, ok := sm.start(); !ok || first {
		t.Errorf("after a published build: start() ok %v first %v, want an update", ok, first)
	}
	sm.finish(nil, true)
}

// BenchmarkSiteChanged is the daemon's periodic site build on the scale
// stores (-vesper.scale, as BenchmarkScale): a full build first (what the
// first build of a run did before, and what `vesper site build` does), the
// first build after a restart with nothing changed (siteStale finds only
// the challenges that hold no valid match, which have no card), then 1,000 events touching 200 matches
// (stray moves from a key that plays in none of them: every match page
// lists them as ignored) and the periodic build that follows, from the
// 200 marks. Each figure is one run; cpu-s is the process's CPU.
func BenchmarkSiteChanged(b *testing.B) {
	benchfx.EachSize(b, func(b *testing.B, fx benchfx.Fixture) {
		for range b.N {
			benchSiteChanged(b, fx)
		}
	})
}

func benchSiteChanged(b *testing.B, fx benchfx.Fixture) {
	b.StopTimer()
	ctx := context.Background()
	st, err := store.Open(summarisedStore(b, fx))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	out := filepath.Join(b.TempDir(), "site")
	cpu := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	measure := func(name string, f func() error) {
		runtime.GC()
		c0, t0 := cpu(), time.Now()
		if err := f(); err != nil {
			b.Fatalf("%s: %v", name, err)
		}
		b.ReportMetric(time.Since(t0).Seconds(), name+"-s")
		b.ReportMetric((cpu() - c0).Seconds(), name+"-cpu-s")
	}
	b.StartTimer()
	measure("full", func() error {
		stats, err := BuildSite(ctx, st, out, "", true, benchfx.End)
		b.ReportMetric(float64(stats.Passes), "full-passes")
		return err
	})
	measure("restart", func() error {
		stale, err := siteStale(ctx, st, out)
		if err != nil {
			return err
		}
		// Challenges that hold no valid match have no card, so they are
		// always folded again (a few events each).
		b.ReportMetric(float64(len(stale)), "restart-folded")
		_, err = siteUpdate(ctx, st, out, "", siteShow{listAll: true, dormantAfter: DefaultLimits().DormantAfter}, benchfx.End, stale)
		return err
	})
	b.StopTimer()
	ids, err := st.MatchIDs(ctx)
	if err != nil {
		b.Fatal(err)
	}
	stray := testkit.Key("bench-stray")
	var touched []string
	var batch []store.Incoming
	for i := 0; i < 200 && i < len(ids); i++ {
		id := ids[i*len(ids)/200]
		touched = append(touched, id)
		for k := range 5 {
			ev := testkit.Sign(stray, nostr.NewMove(id, 1, "e2e4", benchfx.End-int64(k)))
			batch = append(batch, store.Incoming{Event: ev, Raw: nostr.MarshalEvent(ev), Relay: "wss://bench.invalid", SeenAt: benchfx.End})
		}
	}
	if _, err := st.PutEvents(ctx, batch); err != nil {
		b.Fatal(err)
	}
	b.StartTimer()
	measure("update-200", func() error {
		_, err := siteUpdate(ctx, st, out, "", siteShow{listAll: true, dormantAfter: DefaultLimits().DormantAfter}, benchfx.End, touched)
		return err
	})
}

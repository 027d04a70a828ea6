package daemon

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"
	"time"
	"vesper/arbiter"
	"vesper/internal/benchfx"
	"vesper/internal/sim"
	"vesper/match"
	"vesper/match/gomoku"
	"vesper/nostr"
	"vesper/nostr/relay"
	"vesper/store"
)

func BenchmarkScale(b *testing.B) {
	benchfx.EachSize(b, func(b *testing.B, fx benchfx.Fixture) {
		b.Logf("%d matches, %d events, %d agents (cache %s)", fx.Meta.Matches, fx.Meta.Events, fx.Meta.Agents, fx.Dir)
		b.Run("ingest", func(b *testing.B) { benchIngest(b, fx) })
		b.Run("rebuild", func(b *testing.B) { benchRebuild(b, fx, false) })
		b.Run("rebuild-verified", func(b *testing.B) { benchRebuild(b, fx, true) })
		b.Run("move", func(b *testing.B) { benchMove(b, fx) })
		b.Run("site", func(b *testing.B) { benchSite(b, fx) })
		if fx.Meta.Matches <= 1000 {
			b.Run("daemon-ingest", func(b *testing.B) { benchDaemonIngest(b, fx) })
		}
	})
}

func benchIngest(b *testing.B, fx benchfx.Fixture) {
	for range b.N {
		b.StopTimer()
		st, err := store.Open(filepath.Join(b.TempDir(), "vesper.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		n, err := benchfx.IngestFile(context.Background(), fx.EventsPath(), st, true)
		if err != nil {
			b.Fatal(err)
		}
		el := time.Since(start)
		b.StopTimer()
		st.Close()
		b.ReportMetric(el.Seconds(), "s")
		b.ReportMetric(float64(n)/el.Seconds(), "events/s")
	}
}

// benchRebuild: `vesper rebuild` (recheck false, as the daemon starts: the
// store's events passed their checks at ingest) or `vesper rebuild
// --verify` (every id and signature checked again on all cores).
func benchRebuild(b *testing.B, fx benchfx.Fixture, recheck bool) {
	for range b.N {
		b.StopTimer()
		st, err := store.Open(fx.StorePath())
		if err != nil {
			b.Fatal(err)
		}
		n := newNode(st, nostr.SecretKey{}, nil, arbiter.Config{}, discardLog())
		n.recheck = recheck
		runtime.GC()
		debug.FreeOSMemory()
		peak := benchfx.PeakRSS()
		b.StartTimer()
		start := time.Now()
		count, err := n.rebuild(context.Background(), nil)
		if err != nil {
			b.Fatal(err)
		}
		el := time.Since(start)
		b.StopTimer()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(el.Seconds(), "s")
		b.ReportMetric(float64(count)/el.Seconds(), "matches/s")
		b.ReportMetric(peak(), "peak-RSS-MB")
		b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MB")
		if n.rejected.Load() != 0 {
			b.Fatalf("%d stored events failed their check", n.rejected.Load())
		}
		runtime.KeepAlive(n)
		st.Close()
	}
}

// benchMove: one new move of a game in progress, from the raw bytes a
// relay sends to the stored event and the stored summary: parse and
// verify (as the relay client does), then the daemon's ingest (store,
// re-fold of the match, summary). Reports p50, p99 and max over many
// moves spread over the store's active games.
func benchMove(b *testing.B, fx benchfx.Fixture) {
	const moves = 500
	for range b.N {
		b.StopTimer()
		st, err := store.Open(benchfx.CopyStore(b, fx))
		if err != nil {
			b.Fatal(err)
		}
		n := newNode(st, nostr.SecretKey{}, nil, arbiter.Config{}, discardLog())
		if _, err := n.rebuild(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
		keys := map[string]nostr.SecretKey{}
		for i := range fx.Meta.Agents {
			k := sim.AgentKey(fx.Meta.Seed, i)
			keys[k.PublicKey()] = k
		}
		var active []string
		for _, s := range n.snapshot() {
			if s.Accepted && !s.Over && !s.Final {
				active = append(active, s.Match)
			}
		}
		if len(active) == 0 {
			b.Fatal("no game in progress in the store")
		}
		var lat []time.Duration
		ctx := context.Background()
		for i := 0; len(lat) < moves && i < 20*moves; i++ {
			s := n.state(active[i%len(active)])
			if s == nil || s.Over || s.Final {
				continue
			}
			// A live move is stamped after everything already received
			// (extending the state); one that sorts before an event already
			// folded re-folds the match, measured below on its own.
			t := max(s.LastFolded()+1, s.ClockStart()+1)
			key, ok := keys[s.Player(s.ToMove())]
			mv := legalMove(s)
			if t > s.ClockStart()+match.MoveClock || !ok || mv == "" {
				continue
			}
			ev := nostr.NewMove(s.Match, s.Plies()+1, mv, t)
			if err := key.Sign(ev); err != nil {
				b.Fatal(err)
			}
			raw := nostr.MarshalEvent(ev)
			before := s.Plies()
			b.StartTimer()
			start := time.Now()
			parsed, err := nostr.ParseAndVerify(raw)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := n.ingest(ctx, []relay.Received{{Event: parsed, Relay: "wss://bench.invalid"}}); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(start))
			b.StopTimer()
			if after := n.state(s.Match); after == nil || after.Plies() != before+1 {
				b.Fatalf("match %s: the move %s at ply %d did not count", s.Match, mv, before+1)
			}
		}
		// The slow path: an event that sorts before one already folded (a
		// move posted late, a backdated result) re-folds its match from the
		// store and writes the summary.
		var refolds []time.Duration
		for i := 0; i < len(active) && len(refolds) < moves; i++ {
			b.StartTimer()
			start := time.Now()
			if _, err := n.refold(ctx, active[i]); err != nil {
				b.Fatal(err)
			}
			refolds = append(refolds, time.Since(start))
			b.StopTimer()
		}
		st.Close()
		if len(lat) < moves/2 {
			b.Fatalf("only %d moves could be played", len(lat))
		}
		q := func(d []time.Duration, p float64) float64 {
			slices.Sort(d)
			return float64(d[int(p*float64(len(d)-1))]) / float64(time.Millisecond)
		}
		b.ReportMetric(q(lat, 0.50), "p50-ms")
		b.ReportMetric(q(lat, 0.99), "p99-ms")
		b.ReportMetric(q(lat, 1), "max-ms")
		b.ReportMetric(float64(len(lat)), "moves")
		b.ReportMetric(q(refolds, 0.50), "refold-p50-ms")
		b.ReportMetric(q(refolds, 0.99), "refold-p99-ms")
	}
}

// legalMove is some legal move in the match's position, "" if none.
func legalMove(s *match.State) string {
	switch g := s.Board().(type) {
	case *match.Chess:
		if ms := g.G.LegalMoves(); len(ms) > 0 {
			return ms[len(ms)/2].UCI()
		}
	case *match.Gomoku:
		for col := range gomoku.Size {
			for row := range gomoku.Size {
				p := gomoku.Point{Col: (col + 7) % gomoku.Size, Row: (row + 7) % gomoku.Size}
				if g.G.At(p) == 0 {
					return p.String()
				}
			}
		}
	}
	return ""
}

// summarisedStore is a copy of the fixture's store as a daemon leaves it:
// every match folded and its summary stored (the fixture holds the events
// only), cached beside the fixture per fold and schema version.
func summarisedStore(b *testing.B, fx benchfx.Fixture) string {
	b.Helper()
	cached := filepath.Join(fx.Dir, fmt.Sprintf("summarised-v%d-schema%d.db", match.FoldVersion, store.SchemaVersion))
	foldFixture(b, fx, cached, false)
	dst := filepath.Join(b.TempDir(), "vesper.db")
	benchfx.CopyFile(b, cached, dst)
	return dst
}

// foldFixture makes path once, when it is missing: a copy of the fixture's
// store with every match folded and its summary stored, and with sync the
// sync's index too.
func foldFixture(b *testing.B, fx benchfx.Fixture, path string, sync bool) {
	b.Helper()
	if _, err := os.Stat(path); err == nil {
		return
	}
	start := time.Now()
	tmp := path + ".tmp"
	benchfx.CopyFile(b, fx.StorePath(), tmp)
	st, err := store.Open(tmp)
	if err != nil {
		b.Fatal(err)
	}
	n := newNode(st, nostr.SecretKey{}, nil, arbiter.Config{}, discardLog())
	if _, err := n.rebuild(context.Background(), nil); err != nil {
		b.Fatal(err)
	}
	if sync {
		if err := st.PrepareSync(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	b.Logf("folded the fixture's store into %s in %v", filepath.Base(path), time.Since(start).Round(time.Second))
}

func benchSite(b *testing.B, fx benchfx.Fixture) {
	for range b.N {
		b.StopTimer()
		st, err := store.Open(fx.StorePath())
		if err != nil {
			b.Fatal(err)
		}
		out := filepath.Join(b.TempDir(), "site")
		b.StartTimer()
		start := time.Now()
		if _, err := BuildSite(context.Background(), st, out, "", true, benchfx.End); err != nil {
			b.Fatal(err)
		}
		el := time.Since(start)
		// Again over the first build, as the daemon rebuilds every 15
		// minutes: every match re-folded from the store, and each page
		// that comes out the same carried over instead of rewritten.
		start = time.Now()
		if _, err := BuildSite(context.Background(), st, out, "", true, benchfx.End); err != nil {
			b.Fatal(err)
		}
		again := time.Since(start)
		b.StopTimer()
		st.Close()
		if _, err := os.Stat(filepath.Join(out, "index.html")); errors.Is(err, os.ErrNotExist) {
			b.Skip("the site builder wrote nothing: vesper site build is not available in this build")
		}
		b.ReportMetric(el.Seconds(), "s")
		b.ReportMetric(again.Seconds(), "again-s")
	}
}

// benchDaemonIngest is a cold start as the daemon does it: batches of up
// to 500 events as they arrive (here in created_at order), each batch's
// signatures checked together and the batch stored, then every match
// folded once when the backfill is done.
func benchDaemonIngest(b *testing.B, fx benchfx.Fixture) {
	for range b.N {
		b.StopTimer()
		st, err := store.Open(filepath.Join(b.TempDir(), "vesper.db"))
		if err != nil {
			b.Fatal(err)
		}
		n := newNode(st, nostr.SecretKey{}, nil, arbiter.Config{}, discardLog())
		f, err := os.Open(fx.EventsPath())
		if err != nil {
			b.Fatal(err)
		}
		var all []relay.Received
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			raw := slices.Clone(sc.Bytes())
			ev, err := nostr.ParseEvent(raw)
			if err != nil {
				b.Fatal(err)
			}
			all = append(all, relay.Received{Event: ev, Relay: "wss://bench.invalid"})
		}
		f.Close()
		slices.SortFunc(all, func(x, y relay.Received) int { return int(x.Event.CreatedAt - y.Event.CreatedAt) })
		ctx := context.Background()
		b.StartTimer()
		start := time.Now()
		// As the daemon's first backfill goes: each page's signatures
		// checked in one batch (the relay client's dispatcher), the events
		// stored, and every match folded once when the backfill is done.
		unfolded := map[string]bool{}
		for i := 0; i < len(all); i += 500 {
			batch := all[i:min(i+500, len(all))]
			evs := make([]*nostr.Event, len(batch))
			for j, r := range batch {
				evs[j] = r.Event
			}
			for j, ok := range VerifyEvents(evs) {
				if !ok {
					b.Fatalf("event %s fails its check", evs[j].ID)
				}
			}
			now := n.clock()
			if err := n.stash(ctx, n.screen(ctx, batch, now), now, unfolded); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := n.foldBackfill(ctx, unfolded); err != nil {
			b.Fatal(err)
		}
		el := time.Since(start)
		b.StopTimer()
		st.Close()
		b.ReportMetric(el.Seconds(), "s")
		b.ReportMetric(float64(len(all))/el.Seconds(), "events/s")
	}
}

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"vesper/arbiter"
	"vesper/internal/sim"
	"vesper/match"
	"vesper/match/gomoku"
	"vesper/nostr"
	"vesper/nostr/relay"
	"vesper/relayd"
	"vesper/store"
)

// The scale benchmarks measure the daemon with a store of N matches of the
// simulation's long mix (about 100 events a match: chess and gomoku played
// out, noise, results, claims, rulings). Signing a million events takes
// minutes, so each size is generated once and cached in
// $TMPDIR/vesper-bench-N: events.jsonl (every event, as signed) and
// vesper.db (a store holding them). Delete the directory to start over.
//
//	go test ./cmd/vesper -run '^$' -bench Scale -benchtime 1x -timeout 4h -vesper.scale 1000,10000
//	go test ./cmd/vesper -run '^$' -bench Scale -benchtime 1x -timeout 24h -vesper.scale 100000
//
// docs/PERFORMANCE.md records the figures.
var scaleSizes = flag.String("vesper.scale", "1000", "comma-separated store sizes (matches) for BenchmarkScale (10000 takes about 20 minutes the first time)")

const (
	benchSeed    = 42
	benchEnd     = 1_793_000_000 // 2026-10-26: a season in the past, so rule 5 never bites
	benchVersion = 1             // bump when the generator changes, to regenerate caches
)

type benchMeta struct {
	Version int    `json:"version"`
	Matches int    `json:"matches"`
	Agents  int    `json:"agents"`
	Events  int    `json:"events"`
	Seed    uint64 `json:"seed"`
	End     int64  `json:"end"`
}

type benchFixture struct {
	dir  string
	meta benchMeta
}

func (f benchFixture) eventsPath() string { return filepath.Join(f.dir, "events.jsonl") }
func (f benchFixture) storePath() string  { return filepath.Join(f.dir, "vesper.db") }

func BenchmarkScale(b *testing.B) {
	for _, field := range strings.Split(*scaleSizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(field))
		if err != nil || n <= 0 {
			b.Fatalf("-vesper.scale: bad size %q", field)
		}
		b.Run(fmt.Sprintf("matches=%d", n), func(b *testing.B) {
			fx := scaleFixture(b, n)
			b.Logf("%d matches, %d events, %d agents (cache %s)", fx.meta.Matches, fx.meta.Events, fx.meta.Agents, fx.dir)
			b.Run("ingest", func(b *testing.B) { benchIngest(b, fx) })
			b.Run("rebuild", func(b *testing.B) { benchRebuild(b, fx, false) })
			b.Run("rebuild-verified", func(b *testing.B) { benchRebuild(b, fx, true) })
			b.Run("move", func(b *testing.B) { benchMove(b, fx) })
			b.Run("daemon-rss", func(b *testing.B) { benchDaemonRSS(b, fx) })
			b.Run("site", func(b *testing.B) { benchSite(b, fx) })
			if n <= 1000 {
				b.Run("daemon-ingest", func(b *testing.B) { benchDaemonIngest(b, fx) })
			}
		})
	}
}

// scaleFixture returns the cached season and store of n matches, making
// whatever is missing.
func scaleFixture(b *testing.B, n int) benchFixture {
	b.Helper()
	fx := benchFixture{dir: filepath.Join(os.TempDir(), fmt.Sprintf("vesper-bench-%d", n))}
	want := benchMeta{Version: benchVersion, Matches: n, Agents: max(50, n/20), Seed: benchSeed, End: benchEnd}
	metaPath := filepath.Join(fx.dir, "meta.json")
	if raw, err := os.ReadFile(metaPath); err == nil && json.Unmarshal(raw, &fx.meta) == nil {
		got := fx.meta
		got.Events = 0
		if got == want {
			if _, err := os.Stat(fx.storePath()); err == nil {
				return fx
			}
		}
	}
	if err := os.MkdirAll(fx.dir, 0o755); err != nil {
		b.Fatal(err)
	}
	if fx.meta.Version != want.Version || fx.meta.Matches != n || fx.meta.Seed != want.Seed || fx.meta.Events == 0 {
		start := time.Now()
		count, err := writeSeason(fx.eventsPath(), want)
		if err != nil {
			b.Fatal(err)
		}
		fx.meta = want
		fx.meta.Events = count
		b.Logf("generated and signed %d events in %v", count, time.Since(start).Round(time.Second))
	}
	start := time.Now()
	tmp := fx.storePath() + ".tmp"
	os.Remove(tmp)
	st, err := store.Open(tmp)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := ingestFile(context.Background(), fx.eventsPath(), st, false); err != nil {
		b.Fatal(err)
	}
	if err := st.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp, fx.storePath()); err != nil {
		b.Fatal(err)
	}
	b.Logf("built the cached store in %v", time.Since(start).Round(time.Second))
	raw, _ := json.Marshal(fx.meta)
	if err := os.WriteFile(metaPath, raw, 0o644); err != nil {
		b.Fatal(err)
	}
	return fx
}

// writeSeason generates the season in parts of 500 matches (the parts are
// the same matches as one whole season), a part per core at a time, and
// writes one event per line in part order.
func writeSeason(path string, m benchMeta) (int, error) {
	f, err := os.Create(path + ".tmp")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	count := 0
	const part = 500
	round := runtime.GOMAXPROCS(0)
	for from := 0; from < m.Matches; from += part * round {
		seasons := make([]*sim.Season, round)
		errs := make([]error, round)
		var wg sync.WaitGroup
		for i := range round {
			at := from + i*part
			if at >= m.Matches {
				break
			}
			wg.Go(func() {
				seasons[i], errs[i] = sim.Generate(sim.Config{Seed: m.Seed, Agents: m.Agents,
					Matches: min(part, m.Matches-at), From: at, Days: 60, End: m.End, Long: true})
			})
		}
		wg.Wait()
		for i, s := range seasons {
			if errs[i] != nil {
				return count, errs[i]
			}
			if s == nil {
				continue
			}
			for _, ev := range s.Events() {
				w.Write(nostr.MarshalEvent(ev))
				w.WriteByte('\n')
				count++
			}
		}
	}
	if err := w.Flush(); err != nil {
		return count, err
	}
	if err := f.Close(); err != nil {
		return count, err
	}
	return count, os.Rename(path+".tmp", path)
}

// ingestFile is the ingest half of a cold start: every event parsed
// strictly and its id and signature checked on all cores, then stored in
// batches by the one writer. The re-fold is the other half (rebuild).
// verify false skips the checks, for building the cached store from events
// the generator has just signed.
func ingestFile(ctx context.Context, path string, st *store.Store, verify bool) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	const batch = 1000
	lines := make(chan [][]byte, 4)
	checked := make(chan []store.Incoming, 4)
	errc := make(chan error, 1)
	report := func(err error) {
		select {
		case errc <- err:
		default:
		}
	}
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var cur [][]byte
		for sc.Scan() {
			cur = append(cur, slices.Clone(sc.Bytes()))
			if len(cur) == batch {
				lines <- cur
				cur = nil
			}
		}
		if len(cur) > 0 {
			lines <- cur
		}
		if err := sc.Err(); err != nil {
			report(err)
		}
	}()
	seen := time.Now().Unix()
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for raws := range lines {
				in := make([]store.Incoming, 0, len(raws))
				for _, raw := range raws {
					parse := nostr.ParseAndVerify
					if !verify {
						parse = nostr.ParseEvent
					}
					ev, err := parse(raw)
					if err != nil {
						report(fmt.Errorf("event %s: %w", raw[:min(len(raw), 80)], err))
						continue
					}
					in = append(in, store.Incoming{Event: ev, Raw: raw, Relay: "wss://bench.invalid", SeenAt: seen})
				}
				checked <- in
			}
		})
	}
	go func() { wg.Wait(); close(checked) }()
	n := 0
	for in := range checked {
		if _, err := st.PutEvents(ctx, in); err != nil {
			report(err)
			for range checked { // let the checkers finish
			}
			break
		}
		n += len(in)
	}
	select {
	case err := <-errc:
		return n, err
	default:
	}
	return n, nil
}

func benchIngest(b *testing.B, fx benchFixture) {
	for range b.N {
		b.StopTimer()
		st, err := store.Open(filepath.Join(b.TempDir(), "vesper.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		n, err := ingestFile(context.Background(), fx.eventsPath(), st, true)
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

// peakRSS resets the kernel's high-water mark of this process (Linux
// clear_refs 5) and returns a function reading it, in MB.
func peakRSS() func() float64 {
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	return func() float64 { return procStatusMB("/proc/self/status", "VmHWM:") }
}

func procStatusMB(path, field string) float64 {
	raw, err := os.ReadFile(path)
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, field) {
			kb, _ := strconv.ParseFloat(strings.Fields(strings.TrimPrefix(line, field))[0], 64)
			return kb / 1024
		}
	}
	return -1
}

// benchRebuild: `vesper rebuild` (recheck false, as the daemon starts: the
// store's events passed their checks at ingest) or `vesper rebuild
// --verify` (every id and signature checked again on all cores).
func benchRebuild(b *testing.B, fx benchFixture, recheck bool) {
	for range b.N {
		b.StopTimer()
		st, err := store.Open(fx.storePath())
		if err != nil {
			b.Fatal(err)
		}
		n := newNode(st, nostr.SecretKey{}, nil, arbiter.Config{}, discardLog())
		n.recheck = recheck
		runtime.GC()
		debug.FreeOSMemory()
		peak := peakRSS()
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

// copyStore copies the cached store, for benchmarks that write to it.
func copyStore(b *testing.B, fx benchFixture) string {
	b.Helper()
	dst := filepath.Join(b.TempDir(), "vesper.db")
	in, err := os.Open(fx.storePath())
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
	return dst
}

// benchMove: one new move of a game in progress, from the raw bytes a
// relay sends to the stored event and the stored summary: parse and
// verify (as the relay client does), then the daemon's ingest (store,
// re-fold of the match, summary). Reports p50, p99 and max over many
// moves spread over the store's active games.
func benchMove(b *testing.B, fx benchFixture) {
	const moves = 500
	for range b.N {
		b.StopTimer()
		st, err := store.Open(copyStore(b, fx))
		if err != nil {
			b.Fatal(err)
		}
		n := newNode(st, nostr.SecretKey{}, nil, arbiter.Config{}, discardLog())
		if _, err := n.rebuild(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
		keys := map[string]nostr.SecretKey{}
		for i := range fx.meta.Agents {
			k := sim.AgentKey(fx.meta.Seed, i)
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
			if _, err := n.ingest(ctx, []relay.Received{{Event: parsed, Relay: "wss://bench.invalid", Raw: raw}}); err != nil {
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

// benchDaemonRSS starts the real daemon on a copy of the store (verify
// only, one empty relay) and reads its resident memory once it has
// re-folded every match and settled.
func benchDaemonRSS(b *testing.B, fx benchFixture) {
	for range b.N {
		b.StopTimer()
		dbPath := copyStore(b, fx)
		rl, err := relayd.Start(context.Background(), relayd.Options{})
		if err != nil {
			b.Fatal(err)
		}
		logPath := filepath.Join(filepath.Dir(dbPath), "daemon.log")
		logf, err := os.Create(logPath)
		if err != nil {
			b.Fatal(err)
		}
		cmd := exec.Command(binPath, "daemon", "--data", filepath.Dir(dbPath), "--relays", rl.URL(),
			"--tick", "1h", "--no-play", "--no-arbiter")
		cmd.Stdout, cmd.Stderr = logf, logf
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		started := waitLog(logPath, "daemon started", 30*time.Minute)
		ready := time.Since(start)
		time.Sleep(3 * time.Second) // let the relay session and the first tick settle
		status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
		rss, hwm := procStatusMB(status, "VmRSS:"), procStatusMB(status, "VmHWM:")
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		logf.Close()
		rl.Close()
		if !started {
			raw, _ := os.ReadFile(logPath)
			b.Fatalf("the daemon did not start:\n%s", raw)
		}
		b.ReportMetric(rss, "RSS-MB")
		b.ReportMetric(hwm, "peak-RSS-MB")
		b.ReportMetric(ready.Seconds(), "start-s")
	}
}

func waitLog(path, what string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if raw, err := os.ReadFile(path); err == nil && strings.Contains(string(raw), what) {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}

func benchSite(b *testing.B, fx benchFixture) {
	for range b.N {
		b.StopTimer()
		st, err := store.Open(fx.storePath())
		if err != nil {
			b.Fatal(err)
		}
		out := filepath.Join(b.TempDir(), "site")
		b.StartTimer()
		start := time.Now()
		if _, err := siteFromStore(context.Background(), st, out, "", true, benchEnd); err != nil {
			b.Fatal(err)
		}
		el := time.Since(start)
		// Again over the first build, as the daemon rebuilds every 15
		// minutes: every match re-folded from the store, and each page
		// that comes out the same carried over instead of rewritten.
		start = time.Now()
		if _, err := siteFromStore(context.Background(), st, out, "", true, benchEnd); err != nil {
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
func benchDaemonIngest(b *testing.B, fx benchFixture) {
	for range b.N {
		b.StopTimer()
		st, err := store.Open(filepath.Join(b.TempDir(), "vesper.db"))
		if err != nil {
			b.Fatal(err)
		}
		n := newNode(st, nostr.SecretKey{}, nil, arbiter.Config{}, discardLog())
		f, err := os.Open(fx.eventsPath())
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
			all = append(all, relay.Received{Event: ev, Relay: "wss://bench.invalid", Raw: raw})
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
			for j, ok := range verifyEvents(evs) {
				if !ok {
					b.Fatalf("event %s fails its check", evs[j].ID)
				}
			}
			if err := n.stash(ctx, batch, unfolded); err != nil {
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

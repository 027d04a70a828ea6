package benchfx

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"vesper/internal/sim"
	"vesper/nostr"
	"vesper/store"
)

// The scale benchmarks measure the daemon with a store of N matches of the
// simulation's long mix (about 100 events a match: chess and gomoku played
// out, noise, results, claims, rulings). Signing a million events takes
// minutes, so each size is generated once and cached in
// $TMPDIR/vesper-bench-N: events.jsonl (every event, as signed) and
// vesper.db (a store holding them). Delete the directory to start over.
//
//	go test ./daemon -run '^$' -bench Scale -benchtime 1x -timeout 4h -vesper.scale 1000,10000
//	go test ./daemon -run '^$' -bench Scale -benchtime 1x -timeout 24h -vesper.scale 100000
//
// docs/PERFORMANCE.md records the figures.
var Sizes = flag.String("vesper.scale", "1000", "comma-separated store sizes (matches) for BenchmarkScale (10000 takes about 20 minutes the first time)")

const (
	Seed    = 42
	End     = 1_793_000_000 // 2026-10-26: a season in the past, so rule 5 never bites
	Version = 1             // bump when the generator changes, to regenerate caches
)

type Meta struct {
	Version int    `json:"version"`
	Matches int    `json:"matches"`
	Agents  int    `json:"agents"`
	Events  int    `json:"events"`
	Seed    uint64 `json:"seed"`
	End     int64  `json:"end"`
}

type Fixture struct {
	Dir  string
	Meta Meta
}

func (f Fixture) EventsPath() string { return filepath.Join(f.Dir, "events.jsonl") }
func (f Fixture) StorePath() string  { return filepath.Join(f.Dir, "vesper.db") }

// Scale returns the cached season and store of n matches, making
// whatever is missing.
func Scale(b testing.TB, n int) Fixture {
	b.Helper()
	fx := Fixture{Dir: filepath.Join(os.TempDir(), fmt.Sprintf("vesper-bench-%d", n))}
	want := Meta{Version: Version, Matches: n, Agents: max(50, n/20), Seed: Seed, End: End}
	metaPath := filepath.Join(fx.Dir, "meta.json")
	if raw, err := os.ReadFile(metaPath); err == nil && json.Unmarshal(raw, &fx.Meta) == nil {
		got := fx.Meta
		got.Events = 0
		if got == want {
			if _, err := os.Stat(fx.StorePath()); err == nil {
				return fx
			}
		}
	}
	if err := os.MkdirAll(fx.Dir, 0o755); err != nil {
		b.Fatal(err)
	}
	if fx.Meta.Version != want.Version || fx.Meta.Matches != n || fx.Meta.Seed != want.Seed || fx.Meta.Events == 0 {
		start := time.Now()
		count, err := WriteSeason(fx.EventsPath(), want)
		if err != nil {
			b.Fatal(err)
		}
		fx.Meta = want
		fx.Meta.Events = count
		b.Logf("generated and signed %d events in %v", count, time.Since(start).Round(time.Second))
	}
	start := time.Now()
	tmp := fx.StorePath() + ".tmp"
	os.Remove(tmp)
	st, err := store.Open(tmp)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := IngestFile(context.Background(), fx.EventsPath(), st, false); err != nil {
		b.Fatal(err)
	}
	if err := st.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp, fx.StorePath()); err != nil {
		b.Fatal(err)
	}
	b.Logf("built the cached store in %v", time.Since(start).Round(time.Second))
	raw, _ := json.Marshal(fx.Meta)
	if err := os.WriteFile(metaPath, raw, 0o644); err != nil {
		b.Fatal(err)
	}
	return fx
}

// WriteSeason generates the season in parts of 500 matches (the parts are
// the same matches as one whole season), a part per core at a time, and
// writes one event per line in part order.
func WriteSeason(path string, m Meta) (int, error) {
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

// IngestFile is the ingest half of a cold start: every event parsed
// strictly and its id and signature checked on all cores, then stored in
// batches by the one writer. The re-fold is the other half (rebuild).
// verify false skips the checks, for building the cached store from events
// the generator has just signed.
func IngestFile(ctx context.Context, path string, st *store.Store, verify bool) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	lines := make(chan [][]byte, 4)
	checked := make(chan []store.Incoming, 4)
	errc := make(chan error, 1)
	report := func(err error) {
		select {
		case errc <- err:
		default:
		}
	}
	go readBatches(f, lines, report)
	seen := time.Now().Unix()
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() { checkBatches(lines, checked, verify, seen, report) })
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

// readBatches sends f's lines to lines in batches of 1,000, then closes it.
func readBatches(f io.Reader, lines chan<- [][]byte, report func(error)) {
	const batch = 1000
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
}

// checkBatches parses (and with verify, checks) each batch of lines and
// sends the events that pass, received at seen, to checked.
func checkBatches(lines <-chan [][]byte, checked chan<- []store.Incoming, verify bool, seen int64, report func(error)) {
	parse := nostr.ParseAndVerify
	if !verify {
		parse = nostr.ParseEvent
	}
	for raws := range lines {
		in := make([]store.Incoming, 0, len(raws))
		for _, raw := range raws {
			ev, err := parse(raw)
			if err != nil {
				report(fmt.Errorf("event %s: %w", raw[:min(len(raw), 80)], err))
				continue
			}
			in = append(in, store.Incoming{Event: ev, Raw: raw, Relay: "wss://bench.invalid", SeenAt: seen})
		}
		checked <- in
	}
}

// PeakRSS resets the kernel's high-water mark of this process (Linux
// clear_refs 5) and returns a function reading it, in MB.
func PeakRSS() func() float64 {
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	return func() float64 { return ProcStatusMB("/proc/self/status", "VmHWM:") }
}

func ProcStatusMB(path, field string) float64 {
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

// CopyStore copies the cached store, for benchmarks that write to it.
func CopyStore(b testing.TB, fx Fixture) string {
	b.Helper()
	dst := filepath.Join(b.TempDir(), "vesper.db")
	CopyFile(b, fx.StorePath(), dst)
	return dst
}

// CopyFile copies src to dst, streaming (a store can be gigabytes).
func CopyFile(b testing.TB, src, dst string) {
	b.Helper()
	in, err := os.Open(src)
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
}

// EachSize runs f as a sub-benchmark matches=N for each size of
// -vesper.scale, with that size's fixture.
func EachSize(b *testing.B, f func(b *testing.B, fx Fixture)) {
	for _, field := range strings.Split(*Sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(field))
		if err != nil || n <= 0 {
			b.Fatalf("-vesper.scale: bad size %q", field)
		}
		b.Run(fmt.Sprintf("matches=%d", n), func(b *testing.B) { f(b, Scale(b, n)) })
	}
}

// ReadEvents parses a season file written by WriteSeason, one event a
// line, failing the benchmark on a line that is not an event.
func ReadEvents(b testing.TB, path string) []*nostr.Event {
	b.Helper()
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var out []*nostr.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		ev, err := nostr.ParseEvent(sc.Bytes())
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, ev)
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	return out
}

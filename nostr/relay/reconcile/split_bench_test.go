package reconcile

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"vesper/internal/benchfx"
	"vesper/internal/testrelay"
	"vesper/nostr"
	"vesper/nostr/relay/internal/wire"
	"vesper/nostr/relay/limits"
)

// BenchmarkSyncCapped is issue 24's cost: a season of N matches
// (-vesper.scale, the simulation's long mix, about 100 events a match)
// on stock khatru (slicestore, every query capped at 500, NIP-77
// included), synced by NIP-77 with window splitting and, for comparison,
// by the fallback's paged REQs (NoNIP77), into an empty store ("empty")
// and into a store that lacks only 200 late events, moves stamped inside
// the season ("restart"; the fallback follows a tenth of the matches as
// open and the challenges of the last week). Reported per sync: the NIP-77
// sessions (NEG-OPEN), NEG-MSG rounds and splits, the REQ filters the
// relay served, the bytes the relay read and wrote, and seconds.
//
//	go test ./nostr/relay/reconcile -run '^$' -bench SyncCapped -benchtime 1x -timeout 4h -vesper.scale 1000,10000
//
// The season's events are generated once and cached in
// $TMPDIR/vesper-split-N/events.jsonl. docs/PERFORMANCE.md has the
// figures.
func BenchmarkSyncCapped(b *testing.B) {
	for _, s := range strings.Split(*benchfx.Sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			b.Fatalf("bad -vesper.scale %q", s)
		}
		b.Run(fmt.Sprintf("matches=%d", n), func(b *testing.B) {
			evs := splitFixture(b, n)
			all := followed(evs)
			// slicestore keeps its slice newest first and inserts by
			// moving the tail: loaded in that order, nothing moves.
			slices.SortFunc(all, func(x, y *nostr.Event) int {
				return cmp.Or(cmp.Compare(y.CreatedAt, x.CreatedAt), cmp.Compare(y.ID, x.ID))
			})
			r := testrelay.Khatru(b, testrelay.KhatruOptions{})
			limits.Forget(r.URL)
			if err := r.Store(context.Background(), all...); err != nil {
				b.Fatal(err)
			}
			late := lateMoves(all, 200)
			var matches []string
			for _, ev := range all {
				if ev.Kind == nostr.KindChallenge {
					matches = append(matches, ev.ID)
				}
			}
			slices.Sort(matches)
			b.Logf("%d matches, %d events on the relay (%d late)", len(matches), len(all), len(late))
			for _, variant := range []string{"empty/nip77", "empty/paged", "restart/nip77", "restart/paged"} {
				b.Run(variant, func(b *testing.B) {
					for b.Loop() {
						b.StopTimer()
						l := newMemLocal()
						if strings.HasPrefix(variant, "restart") {
							l = newMemLocal(all...)
							for _, ev := range late {
								delete(l.evs, ev.ID)
							}
							l.open = matches[:len(matches)/10]
						}
						opts := l.options(r.URL)
						opts.RelayTimeout, opts.QueryTimeout = 4*time.Hour, time.Minute
						if strings.HasSuffix(variant, "paged") {
							opts.NoNIP77 = true
							if strings.HasPrefix(variant, "restart") {
								opts.ChallengesSince = func(string) int64 { return benchfx.End - 7*86400 - 3600 }
							}
						}
						q0, s0 := r.Queries(), r.NegSessions()
						rd0, wr0 := r.Traffic()
						b.StartTimer()
						start := time.Now()
						st := syncCount(b, opts)
						el := time.Since(start)
						b.StopTimer()
						rd1, wr1 := r.Traffic()
						want := len(all)
						if strings.HasPrefix(variant, "restart") {
							want = len(late)
						}
						b.Logf("%s: %s in %v", variant, statLine(st), el.Round(time.Millisecond))
						if st.Error != "" || (strings.HasSuffix(variant, "nip77") && st.Fetched != want) {
							b.Errorf("fetched %d of %d", st.Fetched, want)
						}
						b.ReportMetric(el.Seconds(), "s")
						b.ReportMetric(float64(r.NegSessions()-s0), "neg-sessions")
						b.ReportMetric(float64(st.Rounds), "neg-rounds")
						b.ReportMetric(float64(st.Splits), "splits")
						b.ReportMetric(float64(r.Queries()-q0), "REQ-filters")
						b.ReportMetric(float64(st.Fetched), "fetched")
						b.ReportMetric(float64(rd1-rd0)/1e6, "MB-to-relay")
						b.ReportMetric(float64(wr1-wr0)/1e6, "MB-from-relay")
						b.StartTimer()
					}
				})
			}
		})
	}
}

// syncCount runs Sync, counting what it sends instead of keeping it.
func syncCount(b *testing.B, opts Options) Stats {
	out := make(chan wire.Received, 1024)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range out {
		}
	}()
	stats, err := Sync(context.Background(), opts, out)
	close(out)
	<-done
	if err != nil {
		b.Fatal(err)
	}
	return stats[0]
}

// lateMoves are n moves of the season (every len/n-th), the events a
// restarted verifier lacks: stamped long before its cursor.
func lateMoves(all []*nostr.Event, n int) []*nostr.Event {
	var moves []*nostr.Event
	for _, ev := range all {
		if ev.Kind == nostr.KindMove {
			moves = append(moves, ev)
		}
	}
	var out []*nostr.Event
	for i := 0; i < len(moves) && len(out) < n; i += max(1, len(moves)/n) {
		out = append(out, moves[i])
	}
	return out
}

// splitFixture is the season of n matches of the scale benchmarks
// (benchfx's seed, agents and end), generated once into $TMPDIR.
func splitFixture(b *testing.B, n int) []*nostr.Event {
	b.Helper()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("vesper-split-%d", n))
	path := filepath.Join(dir, "events.jsonl")
	if _, err := os.Stat(path); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		count, err := benchfx.WriteSeason(path, benchfx.Meta{Version: benchfx.Version, Matches: n, Agents: max(50, n/20), Seed: benchfx.Seed, End: benchfx.End})
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("generated and signed %d events in %v", count, time.Since(start).Round(time.Second))
	}
	return benchfx.ReadEvents(b, path)
}

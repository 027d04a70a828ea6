package store

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"vesper/nostr"
)

const (
	benchMatches   = 10000
	benchMoves     = 4  // per match, after challenge and accept
	benchLongMoves = 80 // in each of the few long matches
	benchLong      = 10
)

// The fixture is built once per test binary run: signing is the slow part
// (about 0.3 ms an event), not the store.
var bench struct {
	once  sync.Once
	dir   string
	path  string
	short []string // match ids with 2+benchMoves events
	long  []string // match ids with 2+benchLongMoves events
	err   error
}

func cleanupBenchFixture() {
	if bench.dir != "" {
		os.RemoveAll(bench.dir)
	}
}

// signMatch builds a signed match: challenge, accept and moves plies.
func signMatch(alice, bob nostr.SecretKey, at int64, plies int) []*nostr.Event {
	ch := nostr.NewChallenge(nostr.GameChess, "", at)
	_ = alice.Sign(ch)
	acc := nostr.NewAccept(ch.ID, alice.PublicKey(), at+1)
	_ = bob.Sign(acc)
	evs := []*nostr.Event{ch, acc}
	for p := 1; p <= plies; p++ {
		mv := nostr.NewMove(ch.ID, p, fmt.Sprintf("m%d", p), at+1+int64(p))
		if p%2 == 1 {
			_ = alice.Sign(mv)
		} else {
			_ = bob.Sign(mv)
		}
		evs = append(evs, mv)
	}
	return evs
}

// benchFixture returns a closed store file holding benchMatches short and
// benchLong long matches.
func benchFixture(b *testing.B) string {
	b.Helper()
	bench.once.Do(func() {
		bench.dir, bench.err = os.MkdirTemp("", "vesper-store-bench-")
		if bench.err != nil {
			return
		}
		bench.path = filepath.Join(bench.dir, "bench.db")
		keys := make([]nostr.SecretKey, 50)
		for i := range keys {
			keys[i] = nostr.GenerateKey()
		}
		matches := make([][]*nostr.Event, benchMatches+benchLong)
		var wg sync.WaitGroup
		workers := runtime.GOMAXPROCS(0)
		for w := range workers {
			wg.Go(func() {
				for i := w; i < len(matches); i += workers {
					plies := benchMoves
					if i >= benchMatches {
						plies = benchLongMoves
					}
					matches[i] = signMatch(keys[i%50], keys[(i+1)%50], 1_700_000_000+int64(i)*10, plies)
				}
			})
		}
		wg.Wait()
		s, err := Open(bench.path)
		if err != nil {
			bench.err = err
			return
		}
		defer s.Close()
		var batch []Incoming
		flush := func() {
			if bench.err == nil && len(batch) > 0 {
				_, bench.err = s.PutEvents(b.Context(), batch)
			}
			batch = batch[:0]
		}
		for i, evs := range matches {
			for _, ev := range evs {
				batch = append(batch, Incoming{Event: ev, Relay: "wss://bench", SeenAt: int64(ev.CreatedAt)})
			}
			if len(batch) >= 1000 {
				flush()
			}
			if i < benchMatches {
				bench.short = append(bench.short, evs[0].ID)
			} else {
				bench.long = append(bench.long, evs[0].ID)
			}
		}
		flush()
		if fi, err := os.Stat(bench.path); err == nil {
			b.Logf("fixture: %d matches, %d events, %.1f MB before checkpoint",
				len(matches), benchMatches*(2+benchMoves)+benchLong*(2+benchLongMoves), float64(fi.Size())/1e6)
		}
	})
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	return bench.path
}

// cpuTime is this process's user+system CPU time. The machine is shared,
// so wall time per op swings with the neighbours' load; CPU time per op
// is the steadier figure (it leaves out fsync waits, which ns/op has).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, start time.Duration, ops int) {
	b.ReportMetric(float64((cpuTime()-start).Microseconds())/float64(ops), "cpu-µs/op")
}

func openBench(b *testing.B) *Store {
	b.Helper()
	s, err := Open(benchFixture(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

func benchmarkMatchEvents(b *testing.B, matches []string, want int) {
	s := openBench(b)
	runtime.GC() // the fixture's garbage is not this benchmark's
	b.ResetTimer()
	i, n, cpu := 0, 0, cpuTime()
	for b.Loop() {
		evs, err := s.MatchEvents(b.Context(), matches[i%len(matches)])
		if err != nil || len(evs) != want {
			b.Fatalf("%d events, %v; want %d", len(evs), err, want)
		}
		i += 7919 // a prime stride, so the lookups wander the whole file
		n++
	}
	reportCPU(b, cpu, n)
}

// MatchEvents with 10,000 matches stored, on a match of 6 events.
func BenchmarkMatchEvents(b *testing.B) {
	benchFixture(b)
	benchmarkMatchEvents(b, bench.short, 2+benchMoves)
}

// MatchEvents on a long match (82 events) in the same file.
func BenchmarkMatchEventsLong(b *testing.B) {
	benchFixture(b)
	benchmarkMatchEvents(b, bench.long, 2+benchLongMoves)
}

func BenchmarkMatchIDs(b *testing.B) {
	s := openBench(b)
	for b.Loop() {
		ids, err := s.MatchIDs(b.Context())
		if err != nil || len(ids) != benchMatches+benchLong {
			b.Fatalf("%d ids, %v", len(ids), err)
		}
	}
}

// presigned returns n signed moves, signed before the timer starts.
func presigned(b *testing.B, n int) []*nostr.Event {
	b.Helper()
	k := nostr.GenerateKey()
	match := nostr.NewChallenge(nostr.GameChess, "", 1)
	_ = k.Sign(match)
	out := make([]*nostr.Event, n)
	for i := range out {
		out[i] = nostr.NewMove(match.ID, i+1, "e2e4", int64(i))
		if err := k.Sign(out[i]); err != nil {
			b.Fatal(err)
		}
	}
	return out
}

// PutEvents throughput: new events in batches of 100 (each batch one
// transaction, one fsync), reported as events/s, into a store that already
// holds the 10,000-match fixture. raw=given passes Incoming.Raw (the bytes
// checked against the event), raw=nil leaves the store to marshal it.
func BenchmarkPutEvents(b *testing.B) {
	for _, tc := range []struct {
		size int
		raw  bool
	}{{1, false}, {100, false}, {100, true}} {
		size := tc.size
		name := fmt.Sprintf("batch=%d/raw=nil", size)
		if tc.raw {
			name = fmt.Sprintf("batch=%d/raw=given", size)
		}
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			src, err := os.ReadFile(benchFixture(b))
			if err != nil {
				b.Fatal(err)
			}
			path := filepath.Join(dir, "put.db")
			if err := os.WriteFile(path, src, 0o644); err != nil {
				b.Fatal(err)
			}
			s, err := Open(path)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			evs := presigned(b, 2000)
			raws := make([][]byte, len(evs))
			for i, ev := range evs {
				if tc.raw {
					raws[i] = nostr.MarshalEvent(ev)
				}
			}
			batch := make([]Incoming, size)
			runtime.GC()
			b.ResetTimer()
			n, cpu := 0, cpuTime()
			for b.Loop() {
				for j := range batch {
					// Past the presigned pool, re-putting is the
					// duplicate path: the relay set changes instead.
					ev, raw := evs[n%len(evs)], raws[n%len(evs)]
					batch[j] = Incoming{Event: ev, Raw: raw, Relay: fmt.Sprintf("wss://r%d", n/len(evs)), SeenAt: int64(n)}
					n++
				}
				if _, err := s.PutEvents(b.Context(), batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
			reportCPU(b, cpu, n/size)
		})
	}
}

// BenchmarkCheckIncoming is PutEvents' per-event check before SQLite: the
// bytes to write and the proof that they read back as the same event.
func BenchmarkCheckIncoming(b *testing.B) {
	ev := presigned(b, 1)[0]
	for _, tc := range []struct {
		name string
		raw  []byte
	}{{"raw=nil", nil}, {"raw=given", nostr.MarshalEvent(ev)}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := checkIncoming(Incoming{Event: ev, Raw: tc.raw, Relay: "wss://r", SeenAt: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

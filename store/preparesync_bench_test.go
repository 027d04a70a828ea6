package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"vesper/nostr"
)

// BenchmarkPrepareSyncMemory is the first sync's PrepareSync on a store
// without the sync's index (as `vesper rebuild` and every store from
// before session 3 leave it): the peak resident memory of building it.
// The events are unsigned stand-ins of the match kinds (the index reads
// only kind, created_at and id; the rows' raw JSON is what a scan of the
// table reads past), 100 to a match; the process's peak is reset
// (/proc/self/clear_refs) once the store is filled, so "peak-MB" is the
// build's, on top of what the process already held ("before-MB").
//
//	go test ./store -run '^$' -bench PrepareSyncMemory -benchtime 1x  # VESPER_BENCH_EVENTS=n for another size
func BenchmarkPrepareSyncMemory(b *testing.B) {
	n := 200_000
	if v := os.Getenv("VESPER_BENCH_EVENTS"); v != "" {
		n, _ = strconv.Atoi(v)
	}
	ctx := context.Background()
	s := fillStandIns(b, n)
	before := procKB(b, "VmRSS")
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Skip("cannot reset the peak:", err)
	}
	b.ResetTimer()
	if err := s.PrepareSync(ctx); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(before)/1024, "before-MB")
	b.ReportMetric(float64(procKB(b, "VmHWM"))/1024, "peak-MB")
	b.ReportMetric(float64(procKB(b, "VmRSS"))/1024, "after-MB")
}

// fillStandIns is a store of n unsigned stand-ins of moves, 100 to a
// match, without the sync's index.
func fillStandIns(t testing.TB, n int) *Store {
	t.Helper()
	ctx := context.Background()
	s, err := Open(filepath.Join(t.TempDir(), "vesper.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	batch := make([]Incoming, 0, 5000)
	sig := strings.Repeat("0", 128)
	pub := strings.Repeat("1", 64)
	for i := range n {
		m := fmt.Sprintf("%064x", i/100+1)
		ev := nostr.NewMove(m, i%100, "e2e4 a comment of some length to stand for a move's content", 1_700_000_000+int64(i))
		ev.ID, ev.PubKey, ev.Sig = fmt.Sprintf("%064x", 1<<32+i), pub, sig
		batch = append(batch, Incoming{Event: ev, Relay: "wss://r.example", SeenAt: int64(ev.CreatedAt)})
		if len(batch) == cap(batch) || i == n-1 {
			if _, err := s.PutEvents(ctx, batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	return s
}

func procKB(b *testing.B, field string) int64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skip(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb
		}
	}
	return 0
}

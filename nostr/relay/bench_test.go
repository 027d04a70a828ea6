package relay

import (
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/testkit"
	"vesper/nostr"
	"vesper/relayd"
)

// BenchmarkFetchPaged measures a full paged, verified fetch of 2000 events
// from a relay capped at 500 per query.
func BenchmarkFetchPaged(b *testing.B) {
	r, err := relayd.Start(b.Context(), relayd.Options{MaxLimit: 500})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	key := nostr.GenerateKey()
	base := time.Now().Unix() - 5000
	const n = 2000
	for i := range n {
		ev := nostr.NewMove("m", i+1, "e2e4", base+int64(i))
		key.Sign(ev)
		if err := r.Publish(b.Context(), ev); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	cpu0, _ := testkit.ProcessCPU()
	for b.Loop() {
		got, err := Fetch(b.Context(), []string{r.URL()}, []gn.Filter{{Kinds: []int{nostr.KindMove}}}, time.Minute)
		if err != nil || len(got) != n {
			b.Fatalf("got %d events, %v", len(got), err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
	// The relay runs in this process: its CPU time is in the figure too.
	if cpu1, ok := testkit.ProcessCPU(); ok {
		b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(n*b.N), "cpu-ns/event")
	}
}

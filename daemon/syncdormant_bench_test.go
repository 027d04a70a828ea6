package daemon

import (
	"context"
	"testing"
	"time"

	"vesper/nostr"
	"vesper/store"
)

// BenchmarkSyncDormant is one fallback sync of a relay without NIP-77 on
// a store of 100,000 matches that a sync need not ask about by name (half
// games idle for a week, half expired challenges; summaries only, as the
// fallback reads nothing else of them) and one live game, against a
// scripted relay that answers every REQ with EOSE alone. "all" asks
// about every open match by name, as every sync did before issue 38 (and
// `vesper sync --full` still does); "bounded" is a periodic sync now. It
// reports the REQs, the bytes of their filters and the time; what a real
// relay takes to answer them is not in it.
//
//	go test ./daemon -run '^$' -bench SyncDormant -benchtime 1x
func BenchmarkSyncDormant(b *testing.B) {
	for _, c := range []struct {
		name string
		full bool
	}{{"all", true}, {"bounded", false}} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			n := testNode(b, nostr.SecretKey{})
			fillDormant(b, n.st, 100_000)
			l := &reqLog{}
			n.relays = []string{l.relay(b)}
			for _, what := range []string{store.SyncMarkDone, store.SyncMarkFullScan} {
				if err := n.st.SetSyncMark(ctx, n.relays[0], what, tNow-600); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				if _, err := n.SyncOnce(ctx, SyncRequest{NoNIP77: true, Full: c.full}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(l.reqs)/float64(b.N), "REQs/op")
			b.ReportMetric(float64(l.bytes)/float64(b.N), "filterbytes/op")
			b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "s/op")
		})
	}
}

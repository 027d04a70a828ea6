package store_test

import (
	"context"
	"testing"

	"vesper/internal/benchfx"
	"vesper/internal/parallel"
	"vesper/store"
)

// BenchmarkMatchEventsSeen reads every event of every match of the scale
// fixture as a full site build does (MatchEventsSeen on one goroutine per
// CPU, from a read-only store like `vesper site build`'s), which a build
// of a store without summaries does twice (docs/PERFORMANCE.md):
//
//	go test ./store -run '^$' -bench MatchEventsSeen -benchtime 1x -vesper.scale 10000
//
// The fixture is made on first use in $TMPDIR/vesper-bench-N (benchfx).
func BenchmarkMatchEventsSeen(b *testing.B) {
	benchfx.EachSize(b, func(b *testing.B, fx benchfx.Fixture) {
		ctx := context.Background()
		st, err := store.OpenReadOnly(fx.StorePath())
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		ids, err := st.MatchIDs(ctx)
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for range b.N {
			err := parallel.Do(len(ids), func(i int) error {
				_, _, err := st.MatchEventsSeen(ctx, ids[i])
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(fx.Meta.Events), "events")
	})
}

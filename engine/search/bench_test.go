package search

import (
	"testing"
	"time"
)

// BenchmarkSearch reports search speed (nodes/s, quiescence included) on
// an opening, a middlegame and an endgame, each searched to a fixed node
// budget with a fresh table.
func BenchmarkSearch(b *testing.B) {
	for _, tc := range []struct{ name, fen string }{
		{"start", ""},
		{"kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"},
		{"endgame", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			g := mustGame(b, tc.fen)
			var nodes int64
			var elapsed time.Duration
			depth := 0
			for b.Loop() {
				res, err := NewSearcher(16).Search(g, Limits{Nodes: 300_000}, nil)
				if err != nil {
					b.Fatal(err)
				}
				nodes += res.Nodes
				elapsed += res.Elapsed
				depth = res.Depth
			}
			b.ReportMetric(float64(nodes)/elapsed.Seconds(), "nodes/s")
			b.ReportMetric(float64(depth), "depth")
		})
	}
}

func BenchmarkEvaluate(b *testing.B) {
	g := mustGame(b, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
	for b.Loop() {
		Evaluate(&g.Pos)
	}
}

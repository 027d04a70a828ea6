package board

import "testing"

// Published perft counts (chessprogramming.org "Perft Results").
var perftCases = []struct {
	name   string
	fen    string
	counts []int64 // depth 1, 2, ...
	// fast is the deepest depth run under -short.
	fast int
}{
	{"start", StartFEN,
		[]int64{20, 400, 8902, 197281, 4865609}, 5},
	{"kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
		[]int64{48, 2039, 97862, 4085603, 193690690}, 4},
	{"position3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
		[]int64{14, 191, 2812, 43238, 674624}, 5},
	{"position4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
		[]int64{6, 264, 9467, 422333, 15833292}, 4},
	{"position4-mirrored", "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
		[]int64{6, 264, 9467, 422333, 15833292}, 4},
	{"position5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
		[]int64{44, 1486, 62379, 2103487, 89941194}, 4},
	{"position6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
		[]int64{46, 2079, 89890, 3894594, 164075551}, 4},
}

func TestPerft(t *testing.T) {
	for _, tc := range perftCases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParseFEN(tc.fen)
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range tc.counts {
				depth := i + 1
				if depth > tc.fast && testing.Short() {
					t.Skipf("depth %d skipped in -short", depth)
				}
				if got := Perft(&p, depth); got != want {
					t.Fatalf("perft(%d) = %d, want %d", depth, got, want)
				}
			}
		})
	}
}

func BenchmarkPerft(b *testing.B) {
	for _, tc := range []struct {
		name  string
		fen   string
		depth int
	}{{"start-d4", StartFEN, 4}, {"kiwipete-d3", perftCases[1].fen, 3}} {
		b.Run(tc.name, func(b *testing.B) {
			p, err := ParseFEN(tc.fen)
			if err != nil {
				b.Fatal(err)
			}
			var nodes int64
			for b.Loop() {
				nodes += Perft(&p, tc.depth)
			}
			b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
		})
	}
}

package batch

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"vesper/internal/testkit"
)

// benchItems signs n messages spread over k keys.
func benchItems(b *testing.B, n, k int) []Item {
	rng := rand.New(rand.NewPCG(uint64(n), uint64(k)))
	return validItems(b, rng, newSigners(rng, k), n)
}

// reportPerSig reports wall time per signature (what the brief's target
// is about) and, where the OS tells, CPU time per signature summed over
// all cores since cpu0, which stays meaningful when other processes share
// the machine.
func reportPerSig(b *testing.B, n int, cpu0 time.Duration, cpuOK bool) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e3/float64(b.N*n), "µs/sig")
	if cpu1, ok := testkit.ProcessCPU(); ok && cpuOK {
		b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/1e3/float64(b.N*n), "cpu-µs/sig")
	}
}

// BenchmarkVerify: 1,000 items from 50 keys, the target case (under
// 60 µs per signature on the 2-core machine), then shapes closer to a
// cold rebuild (bigger batches) and the worst case for key grouping.
func BenchmarkVerify(b *testing.B) {
	for _, c := range []struct{ n, keys int }{{1000, 50}, {8192, 500}, {1000, 1000}} {
		b.Run(fmt.Sprintf("items=%d/keys=%d", c.n, c.keys), func(b *testing.B) {
			items := benchItems(b, c.n, c.keys)
			cpu0, cpuOK := testkit.ProcessCPU()
			for b.Loop() {
				for i, ok := range Verify(items) {
					if !ok {
						b.Fatalf("item %d rejected", i)
					}
				}
			}
			reportPerSig(b, c.n, cpu0, cpuOK)
		})
	}
}

// BenchmarkIndividual: the same 1,000 items checked one by one by btcec.
func BenchmarkIndividual(b *testing.B) {
	items := benchItems(b, 1000, 50)
	cpu0, cpuOK := testkit.ProcessCPU()
	for b.Loop() {
		for i := range items {
			if !reference(items[i]) {
				b.Fatalf("item %d rejected", i)
			}
		}
	}
	reportPerSig(b, len(items), cpu0, cpuOK)
}

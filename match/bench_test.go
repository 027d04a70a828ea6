package match

import (
	"os"
	"testing"
)

// BenchmarkFoldMatch folds the longest golden match (m-0006: 171 plies, 181
// events with duplicates and injected junk) from parsed, verified events.
func BenchmarkFoldMatch(b *testing.B) {
	data, err := os.ReadFile("testdata/conformance/m-0006.json")
	if err != nil {
		b.Fatal(err)
	}
	f, err := ParseFile(data)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Fold(f.Match, f.Events, f.SeenAt); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(f.Events)*b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkParseFile includes the id and signature checks of every event.
func BenchmarkParseFile(b *testing.B) {
	data, err := os.ReadFile("testdata/conformance/m-0006.json")
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		if _, err := ParseFile(data); err != nil {
			b.Fatal(err)
		}
	}
}

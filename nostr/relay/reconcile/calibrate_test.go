package reconcile

import (
	"context"
	"fmt"
	"testing"
	"time"

	"vesper/internal/sim"
	"vesper/internal/testrelay"
	"vesper/nostr"
	"vesper/nostr/relay/limits"
)

// TestJudge pins the NIP-77 check's verdicts on a REQ view of 999 events
// (one a second): whole, empty (strfry after AUTH), cut at a size no rule
// sees (khatru on lmdb: 474 under a cap of 500), cut at max_limit or a
// cap-like size with only the oldest left out (the splitter sees it), and
// ids dropped from the middle at a cap-like size.
func TestJudge(t *testing.T) {
	var view []Item
	for i := range 999 {
		view = append(view, Item{ID: fmt.Sprint(i), CreatedAt: int64(1000 + i)})
	}
	newest := func(n int) []string {
		var ids []string
		for _, it := range view[len(view)-n:] {
			ids = append(ids, it.ID)
		}
		return ids
	}
	var holes []string
	for i, it := range view {
		if i%10 != 0 && len(holes) < 800 {
			holes = append(holes, it.ID)
		}
	}
	for _, c := range []struct {
		name     string
		listed   []string
		maxLimit int
		trusted  bool
		note     string
	}{
		{"whole", newest(999), 0, true, "999/999"},
		{"empty", nil, 500, false, "NIP-77 lists none of the 999 events REQs read"},
		{"below the cap", newest(474), 500, false, "NIP-77 lists 474 of the 999 events REQs read"},
		{"at max_limit", newest(250), 250, true, "cut at 250"},
		{"cap-like", newest(500), 0, true, "cut at 500"},
		{"holes", holes, 0, false, "NIP-77 lists 800 of the 999 events REQs read"},
	} {
		ok, note := judge(view, c.listed, c.maxLimit)
		if ok != c.trusted || note != c.note {
			t.Errorf("%s: %v %q, want %v %q", c.name, ok, note, c.trusted, c.note)
		}
	}
}

// BenchmarkCheck is the NIP-77 check on its own (what every Sync adds per
// relay), against stock khatru (slicestore, cap 500) holding a 40-match
// season (2,662 game events): its cost is bounded by calibrationEvents,
// whatever the history.
//
//	go test ./nostr/relay/reconcile -run '^$' -bench Check -benchtime 20x
func BenchmarkCheck(b *testing.B) {
	s, err := sim.Generate(sim.Config{Seed: 24, Agents: 12, Matches: 40, End: seasonEnd})
	if err != nil {
		b.Fatal(err)
	}
	r := testrelay.Khatru(b, testrelay.KhatruOptions{})
	limits.Forget(r.URL)
	if err := r.Store(context.Background(), s.Events()...); err != nil {
		b.Fatal(err)
	}
	q0, s0 := r.Queries(), r.NegSessions()
	rd0, wr0 := r.Traffic()
	for b.Loop() {
		res, err := Check(context.Background(), r.URL, nostr.SecretKey{}, time.Minute)
		if err != nil || !res.Trusted {
			b.Fatalf("%+v %v", res, err)
		}
	}
	rd1, wr1 := r.Traffic()
	n := float64(b.N)
	b.ReportMetric(float64(r.Queries()-q0)/n, "REQ-filters/op")
	b.ReportMetric(float64(r.NegSessions()-s0)/n, "neg-sessions/op")
	b.ReportMetric(float64(rd1-rd0)/n/1e3, "kB-to-relay/op")
	b.ReportMetric(float64(wr1-wr0)/n/1e3, "kB-from-relay/op")
}

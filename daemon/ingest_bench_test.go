package daemon

import (
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"testing"
	"time"

	"vesper/arbiter"
	"vesper/internal/testkit"
	"vesper/match"
	"vesper/match/chessjs"
	"vesper/nostr"
	"vesper/relayd"
	"vesper/store"
)

// randomMatches signs n chess matches of random legal games.
func randomMatches(n int, seed int64) []*nostr.Event {
	rng := rand.New(rand.NewSource(seed))
	var evs []*nostr.Event
	for i := 0; i < n; i++ {
		a, b := testkit.Key(fmt.Sprintf("ia%d", i)), testkit.Key(fmt.Sprintf("ib%d", i))
		t := time.Now().Unix() - 86400 + int64(i)
		m := testkit.NewMatch(a, b, "chess", "", t)
		m.Accept(t + 1)
		g := chessjs.NewGame()
		var moves []string
		for ply := 0; ply < 80 && !g.Outcome().Over; ply++ {
			legal := g.LegalMoves()
			mv := legal[rng.Intn(len(legal))]
			g.Move(mv.UCI())
			moves = append(moves, mv.UCI())
		}
		m.Play(moves, t+2, 1)
		evs = append(evs, m.Events...)
	}
	return evs
}

// BenchmarkIngestFromRelay: events per second from a local relay into the
// store, with strict parsing, id and signature checks, storage and the
// fold of every match, until every stored summary is the offline fold's.
// Reported as events/s.
func BenchmarkIngestFromRelay(b *testing.B) {
	evs := randomMatches(100, 1)
	want := map[string]string{} // match -> summary line
	for _, ev := range evs {
		if ev.Kind == nostr.KindChallenge {
			s, err := match.Fold(ev.ID, evs, nil)
			if err != nil {
				b.Fatal(err)
			}
			want[ev.ID] = string(match.MarshalLine(s.Summary(time.Now().Unix())))
		}
	}
	r, err := relayd.Start(context.Background(), relayd.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	for _, ev := range evs {
		if err := r.Publish(context.Background(), ev); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		st, err := store.Open(filepath.Join(b.TempDir(), "v.db"))
		if err != nil {
			b.Fatal(err)
		}
		n := newNode(st, nostr.SecretKey{}, []string{r.URL()}, arbiter.Config{}, discardLog())
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		start := time.Now()
		go func() { _ = n.runDaemon(ctx, Options{Tick: time.Hour}); close(done) }()
		testkit.WaitFor(b, "the summaries", 10*time.Minute, func() bool { return summariesAre(st, want) })
		el := time.Since(start)
		cancel()
		<-done
		st.Close()
		b.ReportMetric(float64(len(evs))/el.Seconds(), "events/s")
	}
}

// summariesAre reports whether the store holds exactly the summaries want.
func summariesAre(st *store.Store, want map[string]string) bool {
	sums, err := st.Summaries(context.Background())
	if err != nil || len(sums) != len(want) {
		return false
	}
	for _, s := range sums {
		if want[s.Match] != string(s.JSON) {
			return false
		}
	}
	return true
}

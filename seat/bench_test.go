package seat

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/match/chessjs"
	"vesper/nostr"
	"vesper/relayd"
)

// BenchmarkWaitLatency measures how long Wait takes to return after the
// opponent's move reaches the relay (issue 14: within 200 ms), with the
// subscription already live: the relay is local, so this is the seat's own
// cost (delivery, fold, status). Each iteration is a fresh gomoku match,
// set up off the clock.
func BenchmarkWaitLatency(b *testing.B) {
	ctx := context.Background()
	r, err := relayd.Start(ctx, relayd.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	ka, kb := testkit.Key("bench-a"), testkit.Key("bench-b")
	a := &Seat{Relays: []string{r.URL()}, Key: ka, Timeout: testkit.Scale(5 * time.Second)}
	var lat []time.Duration
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		t0 := time.Now().Unix() - 1000
		m := testkit.NewMatch(ka, kb, "gomoku", "", t0)
		m.Accept(t0 + 1)
		m.Move(ka, 1, "h8", t0+2)
		for _, ev := range m.Events {
			if err := r.Publish(ctx, ev); err != nil {
				b.Fatal(err)
			}
		}
		reply := testkit.Sign(kb, nostr.NewMove(m.ID, 2, "a1", t0+3))
		done := make(chan *Woke, 1)
		live := make(chan struct{})
		var once sync.Once
		go func() {
			w, err := a.Wait(ctx, m.ID, WaitOptions{Timeout: testkit.Scale(30 * time.Second), Progress: func(p Progress) {
				if p.Connected > 0 {
					once.Do(func() { close(live) })
				}
			}})
			if err != nil {
				b.Error(err)
			}
			done <- w
		}()
		<-live
		b.StartTimer()
		start := time.Now()
		if err := r.Publish(ctx, reply); err != nil {
			b.Fatal(err)
		}
		w := <-done
		lat = append(lat, time.Since(start))
		if w == nil || w.Reason != WakeMyTurn {
			b.Fatalf("woke %+v", w)
		}
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// longMatch is a chess match of n events: a seeded random game that avoids
// ending, then, if it ends early or runs out, ignored moves by a third key.
func longMatch(n int) *testkit.Match {
	ka, kb, kc := testkit.Key("long-a"), testkit.Key("long-b"), testkit.Key("long-c")
	t := time.Now().Unix() - int64(n) - 100
	m := testkit.NewMatch(ka, kb, "chess", "", t)
	m.Accept(t + 1)
	g := chessjs.NewGame()
	rng := rand.New(rand.NewPCG(1, 2))
	for ply := 1; len(m.Events) < n; ply++ {
		t++
		legal := g.LegalMoves()
		played := false
		for _, j := range rng.Perm(len(legal)) {
			try := g.Clone()
			if _, err := try.Move(legal[j].UCI()); err != nil || try.Outcome().Over {
				continue
			}
			g = try
			k := ka
			if ply%2 == 0 {
				k = kb
			}
			m.Move(k, ply, legal[j].UCI(), t+1)
			played = true
			break
		}
		if !played {
			break
		}
	}
	for len(m.Events) < n {
		t++
		m.Move(kc, 1, "e2e4", t+1)
	}
	return m
}

// BenchmarkStatus400 is `vesper status --json` without the process: read a
// 400-event match from a local relay, fold it, build and encode the status.
func BenchmarkStatus400(b *testing.B) {
	ctx := context.Background()
	r, err := relayd.Start(ctx, relayd.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	m := longMatch(400)
	for _, ev := range m.Events {
		if err := r.Publish(ctx, ev); err != nil {
			b.Fatal(err)
		}
	}
	s := &Seat{Relays: []string{r.URL()}, Key: testkit.Key("long-a")}
	for b.Loop() {
		snap, err := s.Read(ctx, m.ID)
		if err != nil {
			b.Fatal(err)
		}
		if len(snap.State.Events) != 400 {
			b.Fatalf("%d events", len(snap.State.Events))
		}
		_ = match.MarshalLine(snap.Status(s.Me(), time.Now().Unix()))
	}
}

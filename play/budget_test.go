package play_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/play"
	"vesper/seat"
)

// TestBudgetStopsNewGames: once the budget is spent the runner takes no
// invitation, says so once, and ends the run with no game left in
// progress.
func TestBudgetStopsNewGames(t *testing.T) {
	url := startRelay(t)
	me, opp := testkit.Key("budget-runner"), testkit.Key("budget-opponent")
	now := time.Now().Unix()
	m := testkit.NewMatch(opp, me, "chess", me.PublicKey(), now-10)
	publish(t, url, m.Events...)
	var mu sync.Mutex
	var lines []play.Line
	r, err := play.New(play.Config{Seat: &seat.Seat{Relays: []string{url}, Key: me, Timeout: testkit.Scale(10 * time.Second)}, Dir: t.TempDir(),
		Policy:   play.Policy{MaxGames: 2, Invitations: true},
		NewMover: func(string) play.Mover { return fixed("e2e4") },
		Budget:   func() string { return "spent $5 of $5" },
		Out:      func(l play.Line) { mu.Lock(); lines = append(lines, l); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(time.Minute))
	defer cancel()
	if err := r.Run(ctx); err != nil && ctx.Err() != nil {
		t.Fatalf("the run did not end by itself: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	budget := 0
	for _, l := range lines {
		if l.Type == "budget" && l.Note == "spent $5 of $5" {
			budget++
		}
	}
	if budget != 1 || ctx.Err() != nil {
		t.Fatalf("budget lines %d, run ended by its deadline: %v; lines %+v", budget, ctx.Err() != nil, lines)
	}
	if st := fold(t, url, m.ID); st.Accepted {
		t.Fatal("the invitation was accepted over budget")
	}
}

package daemon

import (
	"context"
	"sync"
	"testing"
	"time"

	"vesper/internal/testkit"
)

// TestLoopDuty is the pattern of a periodic duty of the loop
// (docs/CONTRIBUTING.md, "Adding a daemon duty"), scheduled as start
// schedules the tick and the site build: loop.every hands the duty to the
// loop, which runs it inside one of its steps (so it may read and write
// what the loop keeps, with no lock), again an interval after each run;
// once ctx ends no run is handed over and the wait group returns, which is
// what lets Close return. The test steps the loop by hand and counts the
// runs: no sleep, no timing read.
func TestLoopDuty(t *testing.T) {
	at := time.Unix(tNow, 0)
	l := stepLoop(t, testkit.Key("house"), &at)
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(10*time.Second))
	defer cancel()
	var wg sync.WaitGroup
	stepping, runs := false, 0
	l.every(ctx, &wg, time.Millisecond, func(context.Context) {
		if !stepping {
			t.Error("the duty ran beside the loop, not in one of its steps")
		}
		runs++
	})
	for runs < 3 {
		ev, ok := l.next(ctx)
		if !ok {
			t.Fatalf("the duty ran %d times, then never again", runs)
		}
		stepping = true
		err := l.step(ctx, ev)
		stepping = false
		if err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	ended := make(chan struct{})
	go func() { wg.Wait(); close(ended) }()
	select {
	case <-ended:
	case <-time.After(testkit.Scale(10 * time.Second)):
		t.Fatal("the duty's schedule did not end with its context")
	}
	if runs != 3 {
		t.Fatalf("the duty ran %d times, want 3", runs)
	}
}

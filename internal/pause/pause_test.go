package pause

import (
	"context"
	"testing"
	"time"

	"vesper/internal/testkit"
)

func TestFor(t *testing.T) {
	ctx := t.Context()
	if !For(ctx, 0) || !For(ctx, -time.Second) || !Until(ctx, time.Now().Add(-time.Hour)) {
		t.Error("a wait already over did not report true")
	}
	if !For(ctx, time.Millisecond) {
		t.Error("a wait of 1 ms did not report true")
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if For(done, 0) || For(done, time.Hour) || Until(done, time.Now()) {
		t.Error("a wait on an ended context reported true")
	}
	// Cancelled midway: it returns then, not after the hour.
	mid, cancel := context.WithCancel(ctx)
	got := make(chan bool)
	go func() { got <- For(mid, time.Hour) }()
	cancel()
	select {
	case ok := <-got:
		if ok {
			t.Error("a cancelled wait reported true")
		}
	case <-time.After(testkit.Scale(10 * time.Second)):
		t.Fatal("a cancelled wait did not return")
	}
}

// TestEvery is the pattern of periodic daemon work: a run at once, the
// next after the interval, and none once the context has ended, even
// mid-interval (the hour below never elapses).
func TestEvery(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	runs := 0
	Every(ctx, time.Millisecond, func(ctx context.Context) {
		runs++
		if runs == 3 {
			cancel()
		}
	})
	if runs != 3 {
		t.Fatalf("%d runs, want 3: Every ran on after its context ended", runs)
	}

	ctx, cancel = context.WithCancel(t.Context())
	done := make(chan int)
	go func() {
		n := 0
		Every(ctx, time.Hour, func(context.Context) { n++ })
		done <- n
	}()
	cancel()
	select {
	case n := <-done:
		if n > 1 {
			t.Fatalf("%d runs within an hour's interval", n)
		}
	case <-time.After(testkit.Scale(10 * time.Second)):
		t.Fatal("Every did not return when its context ended mid-interval")
	}

	ctx, cancel = context.WithCancel(t.Context())
	cancel()
	Every(ctx, time.Millisecond, func(context.Context) { t.Fatal("ran with its context already ended") })
}

// TestAfter: no run at once, unlike Every; runs once the interval has
// passed, none once the context has ended.
func TestAfter(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan int)
	go func() {
		n := 0
		After(ctx, time.Hour, func(context.Context) { n++ })
		done <- n
	}()
	cancel()
	select {
	case n := <-done:
		if n != 0 {
			t.Fatalf("%d runs before the first interval had passed", n)
		}
	case <-time.After(testkit.Scale(10 * time.Second)):
		t.Fatal("After did not return when its context ended")
	}

	// A timer never fires early: the first run is d after the start and
	// each next one d after the last ended, on the monotonic clock.
	const d = 20 * time.Millisecond
	ctx, cancel = context.WithCancel(t.Context())
	runs, last := 0, time.Now()
	After(ctx, d, func(context.Context) {
		if gap := time.Since(last); gap < d {
			t.Errorf("run %d came %v after the last mark, want at least %v", runs+1, gap, d)
		}
		if runs++; runs == 2 {
			cancel()
		}
		last = time.Now()
	})
	if runs != 2 {
		t.Fatalf("%d runs, want 2", runs)
	}
}

// TestOn: work handed to an owner runs only when the owner does it, on
// the owner's goroutine; the next run is not handed over before the last
// has ended (an owner busy with something else delays it, never queues
// two); and once the context ends Every returns, taken run or not.
func TestOn(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	runs := make(chan Run)
	ran := 0 // the owner's state: only the owner's goroutine touches it
	ended := make(chan struct{})
	go func() {
		Every(ctx, time.Millisecond, On(runs, func(context.Context) { ran++ }))
		close(ended)
	}()
	for i := 1; i <= 3; i++ {
		r := <-runs
		if ran != i-1 {
			t.Fatalf("run %d: the work ran %d times before the owner did it", i, ran)
		}
		if i == 1 {
			// A wait expected to run out: at 1 ms intervals, an On that
			// did not wait for Do would hand the next run long before.
			select {
			case <-runs:
				t.Fatal("a second run was handed over before the first had ended")
			case <-time.After(50 * time.Millisecond):
			}
		}
		r.Do()
		if ran != i {
			t.Fatalf("run %d: Do ran the work %d times in all", i, ran)
		}
	}
	<-runs // taken and never done: cancel must still end Every
	cancel()
	select {
	case <-ended:
	case <-time.After(testkit.Scale(10 * time.Second)):
		t.Fatal("Every did not return when its context ended with a run the owner never did")
	}
}

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

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

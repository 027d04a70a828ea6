// Package pause waits for a time or for a context to end, whichever comes
// first: the one wait every loop that backs off, paces or schedules uses,
// so that each stops as soon as it is cancelled.
package pause

import (
	"context"
	"time"
)

// For waits d and reports true, or reports false as soon as ctx has ended
// (at once when it already has, whatever d).
func For(ctx context.Context, d time.Duration) bool {
	if ctx.Err() != nil {
		return false
	}
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// Until is For until the time at.
func Until(ctx context.Context, at time.Time) bool { return For(ctx, time.Until(at)) }

// Every runs f at once and then d after each run has ended, until ctx
// ends: the one way the daemon schedules periodic work that is not a
// reaction to an event (see docs/CONTRIBUTING.md, "Adding a daemon duty").
// A run that takes longer than d delays the next instead of stacking
// runs up, as a time.Ticker's dropped ticks would not say; f gets ctx and
// should return soon after it ends.
func Every(ctx context.Context, d time.Duration, f func(context.Context)) {
	for ctx.Err() == nil {
		f(ctx)
		if !For(ctx, d) {
			return
		}
	}
}

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
// ends: the one way the daemon schedules periodic work (see
// docs/CONTRIBUTING.md, "Adding a daemon duty"). A run that takes longer
// than d delays the next instead of stacking runs up; f gets ctx and
// should return soon after it ends. d must be positive, as a
// time.Ticker's: a zero interval would spin.
func Every(ctx context.Context, d time.Duration, f func(context.Context)) {
	if d <= 0 {
		panic("pause.Every: non-positive interval")
	}
	for ctx.Err() == nil {
		f(ctx)
		if !For(ctx, d) {
			return
		}
	}
}

// After is Every with the first run d after the start instead of at once:
// for work the start has just done itself (the first site build, the
// start's sync) or that has nothing to do yet.
func After(ctx context.Context, d time.Duration, f func(context.Context)) {
	if d <= 0 {
		panic("pause.After: non-positive interval")
	}
	if For(ctx, d) {
		Every(ctx, d, f)
	}
}

// A Run is one run of periodic work that must happen on the goroutine
// owning the state it touches (a loop's select), handed over by On.
type Run struct {
	f    func()
	done chan struct{}
}

// Do runs the work, on the caller's goroutine, and lets On's Every go on
// to the next interval.
func (r Run) Do() {
	defer close(r.done)
	r.f()
}

// On adapts f for Every when f must run on an owner's goroutine: each run
// hands f over on runs and waits until the owner has done it (Run.Do), so
// the owner runs it between its other events, never beside them, and the
// interval starts when the run has ended, as with f run directly. It
// gives up when ctx ends, whether or not the owner took the run: an owner
// that stopped receiving leaves no goroutine behind.
func On(runs chan<- Run, f func(context.Context)) func(context.Context) {
	return func(ctx context.Context) {
		r := Run{f: func() { f(ctx) }, done: make(chan struct{})}
		select {
		case runs <- r:
		case <-ctx.Done():
			return
		}
		select {
		case <-r.done:
		case <-ctx.Done():
		}
	}
}

package testkit

import (
	"testing"
	"time"
)

// WaitFor polls cond until it holds, failing the test once Scale(d) has
// passed: a wait for an event, with the one generous deadline a loaded
// machine stretches. It polls every 5 ms at first and backs off to every
// 100 ms, so that a long wait on a costly cond (a store read, a fetch)
// does not load the machine it waits on.
func WaitFor(t testing.TB, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(Scale(d))
	every := 5 * time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", Scale(d), what)
		}
		time.Sleep(every) // polling cond, with a deadline
		every = min(2*every, 100*time.Millisecond)
	}
}

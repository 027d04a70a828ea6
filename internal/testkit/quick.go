package testkit

import "testing"

// QuickLoopSkips leaves a long end-to-end run out of the quick loop, `go
// test -short ./...` without the race detector, which a contributor runs
// before each commit and which should take a few minutes on an idle
// two-core machine. scripts/test.sh still runs the test twice: in its
// first step (no -short) and in its race step (-race -short), so nothing
// CI checks is lost; only the loop before a commit is shorter.
func QuickLoopSkips(t testing.TB) {
	t.Helper()
	if testing.Short() && !RaceDetector {
		t.Skip("a long end-to-end run, left out of the quick loop (go test -short without -race); scripts/test.sh runs it")
	}
}

package reconcile

import (
	"sync/atomic"
	"testing"
)

// Bookkeeping that no end-to-end sync test saw go wrong (scripts/mutate,
// issue 39): unit tests of the two counters.

// A relay refused an id because the Sync's total was spent takes nothing
// from that total: once another relay releases its ids, the refused relay
// may take them.
func TestTakeIDGivesBackARefusedTotal(t *testing.T) {
	var total atomic.Int64
	total.Store(1)
	a := newRelayBudget(Budget{IDs: 10}, &total)
	b := newRelayBudget(Budget{IDs: 10}, &total)
	if !a.takeID() {
		t.Fatal("a: the first id of a total of 1 is refused")
	}
	if b.takeID() || !b.spent() {
		t.Fatal("b: an id past the total is taken")
	}
	if got := total.Load(); got != 0 {
		t.Fatalf("after a refusal the total is %d, want 0", got)
	}
	a.release()
	if got := total.Load(); got != 1 {
		t.Fatalf("after a's release the total is %d, want 1", got)
	}
	if !b.takeID() {
		t.Fatal("b: the id a released is refused")
	}
}

// Compared counts the items of a window from its since on, not the second
// before it that the window also asks for (Window.asked).
func TestCountFromIncludesSince(t *testing.T) {
	items := []Item{{ID: "a", CreatedAt: 9}, {ID: "b", CreatedAt: 10}, {ID: "c", CreatedAt: 11}}
	cases := []struct {
		since int64
		want  int
	}{{0, 3}, {9, 3}, {10, 2}, {11, 1}, {12, 0}}
	for _, c := range cases {
		if got := countFrom(items, c.since); got != c.want {
			t.Errorf("countFrom(since %d) = %d, want %d", c.since, got, c.want)
		}
	}
}

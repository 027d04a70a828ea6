package reconcile

import (
	gn "github.com/nbd-wtf/go-nostr"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"vesper/internal/hostile"
	"vesper/internal/testkit"
	"vesper/nostr/relay/limits"
)

// TestSyncBudgetBoundsIDFlood (issue 30, item 1): a relay that claims
// thousands of new ids every round holds at most its budget of them, a
// relay someone else named (Strangers) a much smaller one than a
// configured relay, and what it claimed within the budget is still asked
// for (and counted missing when it never comes).
func TestSyncBudgetBoundsIDFlood(t *testing.T) {
	const perRound, rounds = 5000, 30 // 150,000 ids on offer
	u := hostileNeg(t, hostile.IDFlood(perRound))
	for _, c := range []struct {
		name     string
		stranger bool
		max      int
	}{
		{"stranger", true, 2000},
		{"configured", false, 12_000},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := newMemLocal().options(u)
			opts.MaxRounds = rounds
			opts.Budget = Budget{IDs: 12_000}
			opts.StrangerBudget = Budget{IDs: 2000}
			if c.stranger {
				opts.Strangers = []string{u}
			}
			stats, _ := syncInto(t, opts)
			st := stats[0]
			if !strings.Contains(st.NegError, ErrNegBudget.Error()) {
				t.Fatalf("%s: nip77 error %q, want the budget used", statLine(st), st.NegError)
			}
			if st.Missing > c.max || st.Missing < c.max/2 {
				t.Errorf("%s: %d ids asked for and missing, want at most the budget of %d (and most of it)", statLine(st), st.Missing, c.max)
			}
			if st.Rounds > 1+c.max/perRound+1 {
				t.Errorf("%d rounds: the reconciliation went on past its budget", st.Rounds)
			}
		})
	}
}

// TestSyncBudgetBytes: a relay that never converges stops at its byte
// budget, well before the round limit.
func TestSyncBudgetBytes(t *testing.T) {
	u := hostileNeg(t, func(int) string { return "61" + "00" + "00" + "01" + strings.Repeat("ee", 16) })
	opts := newMemLocal().options(u)
	opts.MaxRounds = 1000
	opts.Strangers = []string{u}
	opts.StrangerBudget = Budget{Bytes: 4000}
	stats, _ := syncInto(t, opts)
	if st := stats[0]; !strings.Contains(st.NegError, ErrNegBudget.Error()) || st.Rounds > 100 || st.Bytes > 8000 {
		t.Fatalf("%s, nip77 error %q: want the byte budget used", statLine(st), st.NegError)
	}
}

// TestSyncTotalIDsShared: the ids all relays hold together are bounded by
// TotalIDs, however many relays flood.
func TestSyncTotalIDsShared(t *testing.T) {
	var relays []string
	for range 3 {
		relays = append(relays, hostileNeg(t, hostile.IDFlood(1000)))
	}
	opts := newMemLocal().options(relays...)
	opts.MaxRounds = 30
	opts.Budget = Budget{IDs: 10_000}
	opts.TotalIDs = 4000
	opts.MaxSessions = 1 // one relay at a time, so the first takes what it may
	stats, _ := syncInto(t, opts)
	total := 0
	for _, st := range stats {
		total += st.Missing
	}
	if total > 3*4000 || stats[0].Missing > 4000 {
		t.Fatalf("%d ids held (first relay %d), want each relay within the 4,000 left of TotalIDs", total, stats[0].Missing)
	}
}

// TestSyncMaxSessions: no more NIP-77 sessions are open at once than
// MaxSessions, however many relays are synced.
func TestSyncMaxSessions(t *testing.T) {
	var mu sync.Mutex
	var open, peak atomic.Int64
	var relays []string
	for range 4 {
		relays = append(relays, hostileNeg(t, func(round int) string {
			// A few rounds each, overlapping if sessions ran together.
			mu.Lock()
			defer mu.Unlock()
			if round == 0 {
				if n := open.Add(1); n > peak.Load() {
					peak.Store(n)
				}
			}
			if round == 3 {
				open.Add(-1)
				return "61" // done: nothing more to reconcile
			}
			return "61" + "00" + "00" + "01" + strings.Repeat("ee", 16)
		}))
	}
	opts := newMemLocal().options(relays...)
	opts.MaxSessions = 1
	syncInto(t, opts)
	if p := peak.Load(); p != 1 {
		t.Fatalf("%d sessions open at once, want 1", p)
	}
}

// TestSyncPageBudget (issue 30, item 10): a relay serving endless pages
// holds a sync, and the daemon's folding behind it, for no longer than its
// page budget (or its events budget) lets it; the relay's error says why.
func TestSyncPageBudget(t *testing.T) {
	for _, c := range []struct {
		name   string
		budget Budget
	}{
		{"pages", Budget{Pages: 5}},
		{"events", Budget{Events: 30}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h, err := hostile.Start(t.Context(), hostile.Options{EndlessPages: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { h.Close() })
			limits.Forget(h.URL())
			l := newMemLocal()
			opts := l.options(h.URL())
			opts.NoNIP77 = true
			opts.PageLimit = 20
			opts.Strangers = []string{h.URL()}
			opts.StrangerBudget = c.budget
			// Without a budget the relay would hold the sync this long.
			opts.RelayTimeout = testkit.Scale(time.Minute)
			stats, got := syncInto(t, opts)
			st := stats[0]
			if !strings.Contains(st.Error, ErrPageBudget.Error()) {
				t.Fatalf("%s: want the page budget used", statLine(st))
			}
			if n := h.REQs(); n > 8 {
				t.Errorf("%d REQs, budget %d pages", n, c.budget.Pages)
			}
			if c.budget.Events > 0 && len(got[gn.NormalizeURL(h.URL())]) > c.budget.Events {
				t.Errorf("%d events sent, budget %d", len(got[gn.NormalizeURL(h.URL())]), c.budget.Events)
			}
		})
	}
}

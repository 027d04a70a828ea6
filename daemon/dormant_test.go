package daemon

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vesper/arbiter"
	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
	"vesper/nostr/relay"
	"vesper/relayd"
	"vesper/store"
)

// dormantWorld is a store as a daemon leaves it after three clocks ran out
// and one game ended, all at t0 (deadlines at t0 + MoveClock): an
// abandoned game between alice and bob (bob to move), the house's own game
// against carol (carol to move), a game in which bob asked for a ruling
// once the clock had run out, and a checkmate that bob signed and alice
// never did.
type dormantWorld struct {
	t0                                    int64
	abandoned, house, requested, unsigned *testkit.Match
}

func newDormantWorld(t *testing.T, st *store.Store, houseKey nostr.SecretKey, t0 int64) dormantWorld {
	t.Helper()
	alice, bob, carol := testkit.Key("alice"), testkit.Key("bob"), testkit.Key("carol")
	w := dormantWorld{t0: t0}
	w.abandoned = testkit.NewMatch(alice, bob, "chess", "", t0-20)
	w.abandoned.Accept(t0 - 10)
	w.abandoned.Move(alice, 1, "e2e4", t0)
	w.house = testkit.NewMatch(houseKey, carol, "chess", "", t0-20)
	w.house.Accept(t0 - 10)
	w.house.Move(houseKey, 1, "d2d4", t0)
	w.requested = testkit.NewMatch(bob, alice, "gomoku", "", t0-20)
	w.requested.Accept(t0 - 10)
	w.requested.Move(bob, 1, "h8", t0)
	w.requested.Request(bob, t0+match.MoveClock+60)
	w.unsigned = testkit.NewMatch(alice, bob, "chess", "", t0-60)
	w.unsigned.Accept(t0 - 50)
	w.unsigned.Play([]string{"f2f3", "e7e5", "g2g4", "d8h4"}, t0-30, 10)
	mate, err := match.Fold(w.unsigned.ID, w.unsigned.Events, nil)
	if err != nil || !mate.Over {
		t.Fatalf("fool's mate did not end: %v", err)
	}
	w.unsigned.Result(bob, mate.Computed(), t0+5)
	// A daemon with another key (verify only) stored and folded them as
	// they came, so the summaries are what any daemon would write.
	n := newNode(st, nostr.SecretKey{}, nil, arbiter.Config{}, discardLog())
	n.clock = func() int64 { return t0 + match.MoveClock + 120 }
	for _, m := range []*testkit.Match{w.abandoned, w.house, w.requested, w.unsigned} {
		deliver(t, n, "ws://before", m.Events...)
	}
	return w
}

// TestDormantGameLeavesMemoryAndWakes (issue 28): with a fixed clock two
// days after the clock ran out, a start does not fold the abandoned game
// (nor the unsigned checkmate), a timeout claim folds it again from the
// store and makes it final; the house's own game is folded and claimed,
// and the game with a request is folded and ruled on (the house
// arbitrates).
func TestDormantGameLeavesMemoryAndWakes(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	houseKey := testkit.Key("house")
	w := newDormantWorld(t, st, houseKey, 1_780_000_000)
	now := w.t0 + match.MoveClock + 2*86400
	n := newNode(st, houseKey, nil, arbiter.DefaultConfig(), discardLog())
	n.clock = func() int64 { return now }

	r, err := n.resume(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.folded != 2 || r.dormant != 2 {
		t.Errorf("the start folded %d and left %d dormant, want 2 and 2", r.folded, r.dormant)
	}
	if n.state(w.abandoned.ID) != nil || n.state(w.unsigned.ID) != nil {
		t.Error("the abandoned game or the unsigned checkmate was folded at start")
	}
	if n.state(w.house.ID) == nil || n.state(w.requested.ID) == nil {
		t.Fatal("the house's own game or the requested one was left dormant")
	}
	if c := n.statusCounts(ctx); c["dormant"] != 2 || c["active"] != 2 || c["over"] != 0 {
		t.Errorf("status counts %v, want 2 dormant and 2 active", c)
	}
	met := newMetrics(func() int { return 0 })
	met.statuses(n.statusCounts(ctx))
	if got := metric(t, met, "vesper_matches", "status", "dormant"); got != 2 {
		t.Errorf(`vesper_matches{status="dormant"} = %v, want 2`, got)
	}
	// The house claims its timeout and rules on the request, two days late.
	if k, err := n.decide(ctx); err != nil || k != 2 {
		t.Errorf("the house recorded %d duties (%v), want 2", k, err)
	}
	for _, duty := range []string{"claim:" + w.house.ID + ":1", "ruling:" + w.requested.ID + ":1"} {
		if has, err := st.OutboxHas(ctx, duty); err != nil || !has {
			t.Errorf("no duty %s in the outbox (%v)", duty, err)
		}
	}

	// The site shows the game as abandoned, and only that one (the
	// checkmate is in the archive as finished, not final).
	out := filepath.Join(t.TempDir(), "site")
	if _, err := BuildSite(ctx, st, out, n.self, true, now); err != nil {
		t.Fatal(err)
	}
	if index, err := os.ReadFile(filepath.Join(out, "index.html")); err != nil || !strings.Contains(string(index), "with 1 abandoned game") {
		t.Errorf("the site does not count the abandoned game (%v)", err)
	}

	// alice claims the abandoned game: the claim wakes it, and the fold
	// makes it final.
	before := n.refolds.Load()
	s, err := match.Fold(w.abandoned.ID, w.abandoned.Events, nil)
	if err != nil {
		t.Fatal(err)
	}
	claim := w.abandoned.Result(testkit.Key("alice"), s.TimeoutWin(), now)
	deliver(t, n, "ws://late", claim)
	if n.refolds.Load() == before {
		t.Error("the claim did not re-fold the dormant game from the store")
	}
	sum := storedSummary(t, n, w.abandoned.ID)
	if !sum.Final || sum.FinalBy == nil || *sum.FinalBy != match.FinalByTimeout {
		t.Errorf("after the claim: final %v by %v, want final by timeout", sum.Final, sum.FinalBy)
	}
	if n.state(w.abandoned.ID) != nil {
		t.Error("the final game is kept in memory")
	}
}

// TestGameGoesDormantWhileRunning: games kept at start because their
// clock ran out less than the grace ago leave memory once the grace has
// passed (evict, each tick), the one with a request too for a daemon that
// does not arbitrate, and a late move wakes a game for a grace period
// only.
func TestGameGoesDormantWhileRunning(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	w := newDormantWorld(t, st, testkit.Key("house"), 1_780_000_000)
	now := w.t0 + match.MoveClock + 3600
	n := newNode(st, nostr.SecretKey{}, nil, arbiter.Config{}, discardLog())
	n.clock = func() int64 { return now }
	if _, err := n.resume(ctx); err != nil {
		t.Fatal(err)
	}
	all := []*testkit.Match{w.abandoned, w.house, w.requested, w.unsigned}
	for _, m := range all {
		if n.state(m.ID) == nil {
			t.Fatalf("match %s, whose deadline passed an hour ago, was left dormant", m.ID[:8])
		}
	}
	now += 86400
	n.evict(now)
	for _, m := range all {
		if n.state(m.ID) != nil {
			t.Errorf("match %s is still kept a day after its grace began", m.ID[:8])
		}
	}
	// The site shows one abandoned game: not the one with a request, which
	// is dormant here (this daemon does not arbitrate), nor the checkmate.
	out := filepath.Join(t.TempDir(), "site")
	if _, err := BuildSite(ctx, st, out, "", true, now); err != nil {
		t.Fatal(err)
	}
	if index, err := os.ReadFile(filepath.Join(out, "index.html")); err != nil || !strings.Contains(string(index), "with 2 abandoned games") {
		t.Errorf("the site does not count two abandoned games, the house's and alice's (%v)", err)
	}

	// bob's move is late (the fold ignores it) but it is an event: the
	// game is kept for a grace period, then goes dormant again.
	late := w.abandoned.Move(testkit.Key("bob"), 2, "e7e5", now)
	deliver(t, n, "ws://late", late)
	if n.state(w.abandoned.ID) == nil {
		t.Error("a late move did not wake the game")
	}
	if sum := storedSummary(t, n, w.abandoned.ID); sum.Plies != 1 || len(sum.Ignored) != 1 {
		t.Errorf("the late move counted: %d plies, ignored %v", sum.Plies, sum.Ignored)
	}
	n.evict(now + 86401)
	if n.state(w.abandoned.ID) != nil {
		t.Error("the woken game did not go dormant again")
	}
}

// TestRunLeavesDormantGameAndWakesIt drives Run on an embedded relay with a
// clock fixed two days after the clocks ran out: the start folds neither
// the abandoned game nor the unsigned checkmate, alice's timeout claim
// arriving from the relay folds the game again and makes it final, and
// the house (arbitrating) claims its own game and rules on the request.
func TestRunLeavesDormantGameAndWakesIt(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	houseKey := testkit.Key("house")
	// Stamped in the past of the wall clock, so that the relay and its
	// subscriptions take every event as they would a live one.
	t0 := time.Now().Unix() - 3*86400 - 600
	w := newDormantWorld(t, st, houseKey, t0)
	now := t0 + match.MoveClock + 2*86400
	rl := startRelays(t, 1, relayd.Options{})[0]
	logs := &testkit.Buffer{}
	d := running(t, Config{Store: st, Relays: []string{rl.URL()}, Log: slog.New(slog.NewTextHandler(logs, nil)), Key: houseKey,
		Arbiter: arbiter.DefaultConfig(), Clock: func() int64 { return now },
		Run: Options{Tick: 50 * time.Millisecond, FirstSyncWait: testkit.Scale(time.Second)}})

	waitFor(t, "the house's claim and ruling", time.Minute, func() bool {
		a, errA := st.OutboxHas(ctx, "claim:"+w.house.ID+":1")
		b, errB := st.OutboxHas(ctx, "ruling:"+w.requested.ID+":1")
		return errA == nil && errB == nil && a && b
	})
	if started := strings.Join(logLines(logs, "daemon started"), "\n"); !strings.Contains(started, " matches_folded=2 kept=2 dormant=2 ") {
		t.Errorf("the start did not leave the two dormant matches out: %s", started)
	}
	if d.State(w.abandoned.ID) != nil || d.State(w.unsigned.ID) != nil {
		t.Fatal("a dormant match is kept in memory")
	}
	s, err := match.Fold(w.abandoned.ID, w.abandoned.Events, nil)
	if err != nil {
		t.Fatal(err)
	}
	claim := testkit.Sign(testkit.Key("alice"), nostr.NewResult(w.abandoned.ID, s.TimeoutWin(), now))
	if ok := relay.Accepted(relay.Publish(ctx, []string{rl.URL()}, claim, testkit.Scale(5*time.Second))); len(ok) == 0 {
		t.Fatal("the relay refused the claim")
	}
	waitFor(t, "the claim making the abandoned game final", time.Minute, func() bool {
		sum, ok, err := st.Summary(ctx, w.abandoned.ID)
		return err == nil && ok && sum.Final
	})
	if d.State(w.abandoned.ID) != nil {
		t.Error("the final game is kept in memory")
	}
}

// logLines returns the lines of a log that hold sub, in order.
func logLines(b *testkit.Buffer, sub string) []string {
	var out []string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return out
}

// metric reads the value of a gauge or a counter from the daemon's
// registry, -1 when it has no series with that label.
func metric(t *testing.T, m *metrics, name, label, value string) float64 {
	t.Helper()
	families, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, s := range f.GetMetric() {
			for _, l := range s.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					if c := s.GetCounter(); c != nil {
						return c.GetValue()
					}
					return s.GetGauge().GetValue()
				}
			}
		}
	}
	return -1
}

package daemon

import (
	"context"
	"fmt"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/nostr"
	"vesper/nostr/relay"
)

// Tests of the loop's steps (step.go), each driven by hand with the
// daemon's fixed clock (tNow) and a fixed wall clock: no relay, no timer
// read, no sleep.

// stepLoop is a loop on a fresh store whose house is house, armed but
// never run: the test calls its steps. at is its wall clock.
func stepLoop(t *testing.T, house nostr.SecretKey, at *time.Time) *loop {
	t.Helper()
	n := testNode(t, house)
	l := n.newLoop(Options{Tick: time.Minute})
	l.wall = func() time.Time { return *at }
	l.arm(context.Background())
	t.Cleanup(l.disarm)
	return l
}

// received is a batch as relay url sent evs.
func received(url string, evs ...*nostr.Event) []relay.Received {
	out := make([]relay.Received, len(evs))
	for i, ev := range evs {
		out[i] = relay.Received{Event: ev, Relay: url}
	}
	return out
}

// syncEnd is the loop's input when a sync has ended: its outcome on
// synced, its marker on recv.
func (l *loop) syncEnd(ctx context.Context) error {
	l.synced <- syncRun{}
	return l.step(ctx, loopEvent{kind: evReceived, batch: []relay.Received{{}}})
}

func accepted(t *testing.T, l *loop, id string) bool {
	t.Helper()
	has, err := l.n.st.OutboxHas(context.Background(), "accept:"+id)
	if err != nil {
		t.Fatal(err)
	}
	return has
}

// TestNoDutyBeforeFirstBackfill: after a start, the house signs nothing
// until every relay has sent its backlog (Ready) and the start's sync
// has stored what the backlog could not reach (or has taken
// FirstSyncWait), whichever order they come in. A challenge inviting the
// house, which resume left in memory, is due all along: each quiet second
// and each tick before the gate opens must leave the outbox empty, and
// the first quiet second after must accept it, along with the challenge
// stored (not folded) during the backfill.
func TestNoDutyBeforeFirstBackfill(t *testing.T) {
	type half func(context.Context, *loop) error
	var (
		ready  half = func(ctx context.Context, l *loop) error { return l.step(ctx, loopEvent{kind: evReady}) }
		late   half = func(ctx context.Context, l *loop) error { return l.step(ctx, loopEvent{kind: evSyncLate}) }
		synced half = func(ctx context.Context, l *loop) error { return l.syncEnd(ctx) }
	)
	for _, tc := range []struct {
		name         string
		first, other half
	}{
		{"ready, then synced", ready, synced},
		{"synced, then ready", synced, ready},
		{"ready, then the sync is late", ready, late},
		{"the sync is late, then ready", late, ready},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			house, alice, bob := testkit.Key("house"), testkit.Key("alice"), testkit.Key("bob")
			at := time.Unix(tNow, 0)
			l := stepLoop(t, house, &at)
			resumed := testkit.NewMatch(alice, house, "gomoku", house.PublicKey(), tNow-60)
			deliver(t, l.n, "ws://a", resumed.Events...) // folded, as resume leaves it
			during := testkit.NewMatch(bob, house, "gomoku", house.PublicKey(), tNow-30)
			if err := l.step(ctx, loopEvent{kind: evReceived, batch: received("ws://a", during.Events...)}); err != nil {
				t.Fatal(err)
			}
			if l.n.state(during.ID) != nil {
				t.Fatal("a challenge received during the backfill was folded before the gate opened")
			}
			shut := func(when string) {
				t.Helper()
				at = at.Add(2 * time.Minute) // past the quiet second and two ticks
				l.stepQuiet(ctx)
				l.stepTick(ctx)
				if accepted(t, l, resumed.ID) || accepted(t, l, during.ID) {
					t.Fatalf("the house accepted a challenge %s", when)
				}
			}
			shut("before any relay had sent its backlog")
			if err := tc.first(ctx, l); err != nil {
				t.Fatal(err)
			}
			shut("with only half the gate open")
			if err := tc.other(ctx, l); err != nil || !l.backfilled {
				t.Fatalf("the gate is still shut (%v)", err)
			}
			l.stepQuiet(ctx)
			if !accepted(t, l, resumed.ID) || !accepted(t, l, during.ID) {
				t.Fatal("the first quiet second after the backfill did not accept both challenges")
			}
			select {
			case <-l.kick:
			default:
				t.Fatal("the publisher was not woken for the accepts")
			}
		})
	}
}

// TestTickWaitsForQuietSecond: past the backfill, a tick runs the duties
// only when the last event is a second old, or when they have not run for
// two ticks (a relay dripping events must not hold them for ever).
func TestTickWaitsForQuietSecond(t *testing.T) {
	ctx := context.Background()
	house := testkit.Key("house")
	at := time.Unix(tNow, 0)
	l := stepLoop(t, house, &at)
	if err := l.step(ctx, loopEvent{kind: evReady}); err != nil {
		t.Fatal(err)
	}
	if err := l.syncEnd(ctx); err != nil {
		t.Fatal(err)
	}
	l.stepQuiet(ctx) // the first pass, at tNow
	challenge := func(t0 int64) *testkit.Match {
		// From a new player each time: the house plays one game at a time
		// with each opponent.
		m := testkit.NewMatch(testkit.Key(fmt.Sprint("player", t0)), house, "gomoku", house.PublicKey(), t0)
		if err := l.step(ctx, loopEvent{kind: evReceived, batch: received("ws://a", m.Events...)}); err != nil {
			t.Fatal(err)
		}
		if l.n.state(m.ID) == nil {
			t.Fatal("past the backfill, a received challenge was not folded")
		}
		return m
	}

	at = at.Add(10 * time.Second)
	m := challenge(tNow - 1)
	at = at.Add(999 * time.Millisecond)
	l.stepTick(ctx)
	if accepted(t, l, m.ID) {
		t.Fatal("a tick ran the duties less than a second after an event")
	}
	at = at.Add(time.Millisecond)
	l.stepTick(ctx)
	if !accepted(t, l, m.ID) {
		t.Fatal("a tick a second after the last event did not run the duties")
	}

	// Events keep coming, each less than a second after the last: two
	// ticks after the last pass, the duties run all the same.
	drip := challenge(tNow - 2)
	at = at.Add(2*l.o.Tick - time.Millisecond)
	challenge(tNow - 3)
	l.stepTick(ctx)
	if accepted(t, l, drip.ID) {
		t.Fatal("a tick ran the duties within two ticks of the last pass, an event just in")
	}
	at = at.Add(time.Millisecond)
	challenge(tNow - 4)
	l.stepTick(ctx)
	if !accepted(t, l, drip.ID) {
		t.Fatal("dripping events held the duties past two ticks")
	}
}

// TestReceivedStoresAndMarks: during the backfill, a batch's events are
// stored unfolded and listed for the backfill's fold, and the relay's mark
// behind them moves its cursor.
func TestReceivedStoresAndMarks(t *testing.T) {
	ctx := context.Background()
	house, alice := testkit.Key("house"), testkit.Key("alice")
	at := time.Unix(tNow, 0)
	l := stepLoop(t, house, &at)
	m := testkit.NewMatch(alice, house, "gomoku", house.PublicKey(), tNow-5)
	batch := append(received("ws://a", m.Events...), relay.Received{Relay: "ws://a", Cursor: tNow - 5})
	if err := l.step(ctx, loopEvent{kind: evReceived, batch: batch}); err != nil {
		t.Fatal(err)
	}
	if has, err := l.n.st.HasEvent(ctx, m.ID); err != nil || !has {
		t.Fatalf("the challenge is not stored (%v)", err)
	}
	if !l.unfolded[m.ID] || l.n.state(m.ID) != nil {
		t.Fatal("a challenge stored during the backfill is not listed for the backfill's fold, or was folded")
	}
	if c, err := l.n.st.Cursor(ctx, "ws://a"); err != nil || c != tNow-5 {
		t.Fatalf("cursor %d, %v; want %d", c, err, tNow-5)
	}
}

// TestSyncerCoalescesReconnects: the first connect of a relay the start's
// sync covered asks for no sync; a reconnect within ReconnectGap of the
// relay's last sync waits for the gap to pass (retry armed, no run), and
// then runs once, with its outcome handed on and its marker behind it.
func TestSyncerCoalescesReconnects(t *testing.T) {
	ctx := context.Background()
	n := testNode(t, nostr.SecretKey{})
	out, done := make(chan relay.Received, 16), make(chan syncRun, 4)
	s := newSyncer(n, Options{ReconnectGap: time.Minute}, out, done, nil)
	at := time.Unix(tNow, 0)
	s.wall = func() time.Time { return at }
	u := testkit.DeadRelay(t) // the sync fails at once
	s.covered[u], s.lastRun[u] = true, at

	s.connected(u)
	if len(s.pending) != 0 || s.covered[u] {
		t.Fatalf("the first connect of a covered relay: pending %v, covered %v", s.pending, s.covered[u])
	}
	at = at.Add(30 * time.Second)
	s.connected(u)
	s.runDue(ctx)
	if len(done) != 0 || !s.pending[u] || s.retry == nil {
		t.Fatalf("a reconnect 30 s after the last sync: ran %d, pending %v, retry armed %v; want it waiting", len(done), s.pending, s.retry != nil)
	}
	at = at.Add(30 * time.Second)
	s.runDue(ctx)
	if len(done) != 1 || len(s.pending) != 0 || s.retry != nil || !s.lastRun[u].Equal(at) {
		t.Fatalf("once the gap has passed: ran %d, pending %v, retry armed %v, last run %v", len(done), s.pending, s.retry != nil, s.lastRun[u])
	}
	if r := <-done; len(r.stats) != 1 || r.stats[0].Relay != u {
		t.Fatalf("the run synced %+v, want %s alone", r.stats, u)
	}
	if m := <-out; m.Event != nil || m.Relay != "" {
		t.Fatalf("behind the run: %+v, want its marker", m)
	}
}

// Issue 38 item 5: once every relay has sent its backlog, what they sent
// is folded without waiting for the start's sync (a relay that pages for
// ever held it for the whole FirstSyncWait), and what comes meanwhile is
// folded as it comes; the duties still wait for the sync.
func TestFoldBeforeTheSyncEnds(t *testing.T) {
	ctx := context.Background()
	house, alice, bob := testkit.Key("house"), testkit.Key("alice"), testkit.Key("bob")
	at := time.Unix(tNow, 0)
	l := stepLoop(t, house, &at)
	during := testkit.NewMatch(alice, house, "gomoku", house.PublicKey(), tNow-30)
	if err := l.step(ctx, loopEvent{kind: evReceived, batch: received("ws://a", during.Events...)}); err != nil {
		t.Fatal(err)
	}
	if err := l.step(ctx, loopEvent{kind: evReady}); err != nil {
		t.Fatal(err)
	}
	if l.n.state(during.ID) == nil {
		t.Fatal("the backfill's challenge is not folded once every relay has sent its backlog")
	}
	later := testkit.NewMatch(bob, house, "gomoku", house.PublicKey(), tNow-20)
	if err := l.step(ctx, loopEvent{kind: evReceived, batch: received("ws://b", later.Events...)}); err != nil {
		t.Fatal(err)
	}
	if l.n.state(later.ID) == nil {
		t.Fatal("a challenge the sync brings is not folded as it comes")
	}
	at = at.Add(2 * time.Minute)
	l.stepQuiet(ctx)
	l.stepTick(ctx)
	if accepted(t, l, during.ID) || accepted(t, l, later.ID) {
		t.Fatal("the house accepted before the start's sync ended")
	}
	if err := l.syncEnd(ctx); err != nil || !l.backfilled {
		t.Fatalf("the gate is still shut (%v)", err)
	}
	l.stepQuiet(ctx)
	if !accepted(t, l, during.ID) || !accepted(t, l, later.ID) {
		t.Fatal("the first quiet second after the sync did not accept both challenges")
	}
}

package seat

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"vesper/internal/testkit"

	"vesper/match"
	"vesper/nostr"
)

// The seat's traps of issue 25, found by playing as an agent would; each
// test names its trap.

// testClock is a clock the test moves by hand.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock(unix int64) *testClock { return &testClock{t: time.Unix(unix, 0)} }

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Set(unix int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = time.Unix(unix, 0)
}

func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestTrapRefusalsListOnlyMyMoves is trap 6: a move out of turn, or before
// the accept by the second player, is refused without the other side's
// legal moves; an illegal move on the key's own turn lists its own.
func TestTrapRefusalsListOnlyMyMoves(t *testing.T) {
	ctx := context.Background()
	r := startRelay(t)
	a, b := fastSeats([]string{r.URL()}, 5*time.Second)
	ch, err := a.Challenge(ctx, "chess", "")
	if err != nil {
		t.Fatal(err)
	}
	id := ch.Match
	rf := refusal(t, func() error { _, err := b.Move(ctx, id, "e7e5"); return err }(), match.IgnNotAccepted)
	if len(rf.LegalMoves) != 0 {
		t.Fatalf("not_accepted lists %d legal moves of the challenger", len(rf.LegalMoves))
	}
	if _, err := b.Accept(ctx, id); err != nil {
		t.Fatal(err)
	}
	rf = refusal(t, func() error { _, err := b.Move(ctx, id, "e7e5"); return err }(), match.IgnWrongPlayer)
	if len(rf.LegalMoves) != 0 {
		t.Fatalf("wrong_player lists %d legal moves of the other side", len(rf.LegalMoves))
	}
	rf = refusal(t, func() error { _, err := a.Move(ctx, id, "e2e5"); return err }(), match.IgnIllegal)
	if len(rf.LegalMoves) != 20 {
		t.Fatalf("illegal_move on my turn lists %d legal moves, want 20", len(rf.LegalMoves))
	}
}

// TestTrapRefusalDoesNotWait is trap 6: the fold is asked before the seat
// waits for its clock to reach the stamp (one second after the match's
// latest event), so a refusal answers at once; a counted move still waits.
func TestTrapRefusalDoesNotWait(t *testing.T) {
	ctx := context.Background()
	r := startRelay(t)
	clock := newTestClock(time.Now().Unix())
	a, b := seats([]string{r.URL()}, 5*time.Second)
	a.Now, b.Now = clock.Now, clock.Now
	var slept []time.Duration
	sleep := func(_ context.Context, d time.Duration) error {
		slept = append(slept, d)
		clock.Add(d)
		return nil
	}
	a.sleep, b.sleep = sleep, sleep
	ch, err := a.Challenge(ctx, "chess", "")
	if err != nil {
		t.Fatal(err)
	}
	clock.Add(time.Second)
	if _, err := b.Accept(ctx, ch.Match); err != nil {
		t.Fatal(err)
	}
	clock.Add(time.Second)
	rep, err := a.Move(ctx, ch.Match, "e4")
	if err != nil {
		t.Fatal(err)
	}
	// The clock stands in the second of the latest event: any event now is
	// stamped one second ahead.
	clock.Set(rep.Status.LastUsed)
	slept = nil
	refusal(t, func() error { _, err := a.Move(ctx, ch.Match, "d4"); return err }(), match.IgnWrongPlayer)
	refusal(t, func() error { _, err := b.Move(ctx, ch.Match, "e2e4"); return err }(), match.IgnIllegal)
	if len(slept) != 0 {
		t.Fatalf("a refusal waited for the clock: %v", slept)
	}
	if _, err := b.Move(ctx, ch.Match, "e5"); err != nil {
		t.Fatal(err)
	}
	if len(slept) != 1 || slept[0] != time.Second {
		t.Fatalf("a counted move stamped a second ahead waited %v, want [1s]", slept)
	}
}

// TestTrapAcceptGoesToTheHints is trap 4: an accept given the challenge as
// nevent reaches the relays the nevent names, so the challenger (who reads
// only those) sees it, and a third key accepting there later is refused
// instead of splitting the match between two second players.
func TestTrapAcceptGoesToTheHints(t *testing.T) {
	ctx := context.Background()
	ra, rb := startRelay(t), startRelay(t)
	alice := &Seat{Relays: []string{ra.URL()}, Key: testkit.Key("trap4-alice"), Timeout: testkit.Scale(5 * time.Second)}
	// The nevent's hint is a loopback relay: the operator's explicit
	// permission (issue 30, item 5).
	bob := &Seat{Relays: []string{rb.URL()}, Key: testkit.Key("trap4-bob"), Timeout: testkit.Scale(5 * time.Second), AllowPrivateRelays: true}
	carol := &Seat{Relays: []string{ra.URL()}, Key: testkit.Key("trap4-carol"), Timeout: testkit.Scale(5 * time.Second)}
	ch, err := alice.Challenge(ctx, "chess", "")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := bob.Accept(ctx, ch.Nevent)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(rep.Accepted, ra.URL()) {
		t.Fatalf("the accept went to %v, not to the nevent's relay %s", rep.Accepted, ra.URL())
	}
	snap, err := alice.Read(ctx, ch.Match)
	if err != nil {
		t.Fatal(err)
	}
	if st := snap.State; !st.Accepted || st.Second != bob.Me() {
		t.Fatalf("the challenger's relay does not have bob's accept: accepted %v, second %q", st.Accepted, st.Second)
	}
	refusal(t, func() error { _, err := carol.Accept(ctx, ch.Match); return err }(), match.IgnAcceptExtra)
}

// TestTrapOneActionAtATime is trap 3: four seats of one key (four
// processes, or parallel MCP calls) play four different first moves at
// once. Each action holds the key's lock on the match from its read to its
// answer, so one counts and answers ok and the others, reading after it,
// are refused wrong_player; nothing else is published.
func TestTrapOneActionAtATime(t *testing.T) {
	ctx := context.Background()
	r := startRelay(t)
	dir := t.TempDir()
	a, b := seats([]string{r.URL()}, 5*time.Second)
	ch, err := a.Challenge(ctx, "chess", "")
	if err != nil {
		t.Fatal(err)
	}
	// With the real clock, every move now waits for the second after the
	// accept: without the lock, each would read the match before any of
	// them published.
	if _, err := b.Accept(ctx, ch.Match); err != nil {
		t.Fatal(err)
	}
	n := r.Count()
	moves := []string{"e4", "d4", "c4", "Nf3"}
	errs := make([]error, len(moves))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, mv := range moves {
		s := &Seat{Relays: a.Relays, Key: a.Key, Timeout: a.Timeout, LockDir: dir}
		wg.Go(func() {
			<-start
			_, errs[i] = s.Move(ctx, ch.Match, mv)
		})
	}
	close(start)
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
			continue
		}
		refusal(t, err, match.IgnWrongPlayer)
	}
	if ok != 1 {
		t.Fatalf("%d of %d simultaneous moves answered ok: %v", ok, len(moves), errs)
	}
	if got := r.Count() - n; got != 1 {
		t.Fatalf("%d events published, want the one move", got)
	}
}

// publishAll puts a testkit match's events on the relay.
func publishAll(t *testing.T, r interface {
	Publish(context.Context, *nostr.Event) error
}, m *testkit.Match) {
	t.Helper()
	for _, ev := range m.Events {
		if err := r.Publish(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
}

// clockFrom is a clock that reads unix now and runs on with the wall
// clock: a seat that believes it is later (or earlier) than it is, so that
// a clock or a stamp runs out a second or two after Wait starts.
func clockFrom(unix int64) func() time.Time {
	d := time.Until(time.Unix(unix, 0))
	return func() time.Time { return time.Now().Add(d) }
}

// TestTrapWaitWakesForWhatCanBeDone is trap 5: Wait wakes for what the key
// can act on, as the fold judges it, and says when nothing is left to do.
// The other player's clock ran out: claim_timeout (at once, or when it
// runs out during the wait). The key's own clock ran out: lost_on_time,
// not my_turn (a move would be late). The other player's move is stamped
// a minute ahead: not my_turn until a move after it can be stamped. The
// other player never signed a finished game: arbitrate, once. An expired
// challenge: expired, which leaves nothing to do.
func TestTrapWaitWakesForWhatCanBeDone(t *testing.T) {
	ctx := context.Background()
	r := startRelay(t)
	a, b := testkit.Key("trap5-a"), testkit.Key("trap5-b")
	seat := func(k nostr.SecretKey, clock func() time.Time) *Seat {
		return &Seat{Relays: []string{r.URL()}, Key: k, Timeout: testkit.Scale(5 * time.Second), Now: clock, LockDir: t.TempDir()}
	}
	wait := func(s *Seat, id string) *Woke {
		t.Helper()
		woke, err := s.Wait(ctx, id, WaitOptions{Timeout: testkit.Scale(time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		return woke
	}
	real := time.Now().Unix()

	// Second's clock ran out two days ago.
	old := testkit.NewMatch(a, b, "chess", "", real-2*86400)
	old.Accept(real - 2*86400 + 1)
	old.Move(a, 1, "e2e4", real-2*86400+2)
	publishAll(t, r, old)
	if w := wait(seat(a, nil), old.ID); w.Reason != WakeClaimTimeout || !w.Status.CanClaimTimeout {
		t.Errorf("opponent out of time: woke %s, want %s", w.Reason, WakeClaimTimeout)
	}
	if w := wait(seat(b, nil), old.ID); w.Reason != WakeLostOnTime || !Terminal(w.Reason) {
		t.Errorf("own clock out: woke %s, want %s", w.Reason, WakeLostOnTime)
	}

	// Second's clock runs out two seconds into the wait.
	soon := testkit.NewMatch(a, b, "chess", "", real-86400-100)
	acc := soon.Accept(real - 86400 - 99)
	soon.Move(a, 1, "e2e4", real-86400-98)
	publishAll(t, r, soon)
	// Ply 2's clock started at the accept (section 2, rule 6).
	deadline := int64(acc.CreatedAt) + match.MoveClock
	if w := wait(seat(a, clockFrom(deadline-1)), soon.ID); w.Reason != WakeClaimTimeout || w.Status.Now <= deadline {
		t.Errorf("clock running out during the wait: woke %s at %d, want %s after %d", w.Reason, w.Status.Now, WakeClaimTimeout, deadline)
	}

	// First's move is stamped a minute ahead of the wall clock; second's
	// clock is six seconds short of the second its answer may be stamped
	// within MaxAhead (5 s).
	ahead := testkit.NewMatch(a, b, "chess", "", real-100)
	ahead.Accept(real - 99)
	mv := ahead.Move(a, 1, "e2e4", real+60)
	publishAll(t, r, ahead)
	valid := int64(mv.CreatedAt) + 1 - 5
	w := wait(seat(b, clockFrom(valid-2)), ahead.ID)
	if w.Reason != WakeMyTurn || w.Status.Now < valid {
		t.Errorf("stamp ahead: woke %s at %d, want %s from %d on", w.Reason, w.Status.Now, WakeMyTurn, valid)
	}

	// Over by resignation two days ago; a signed, b never did: a may ask
	// for arbitration (once), b must still sign.
	over := testkit.NewMatch(a, b, "chess", "", real-3*86400)
	over.Accept(real - 3*86400 + 1)
	over.Move(a, 1, "e2e4", real-3*86400+2)
	over.Move(b, 2, "resign", real-3*86400+3)
	publishAll(t, r, over)
	as := seat(a, nil)
	if _, err := as.SignResult(ctx, over.ID); err != nil {
		t.Fatal(err)
	}
	if w := wait(as, over.ID); w.Reason != WakeArbitrate {
		t.Errorf("the other player never signed: woke %s, want %s", w.Reason, WakeArbitrate)
	}
	if w := wait(seat(b, nil), over.ID); w.Reason != WakeGameOver {
		t.Errorf("the unsigned side: woke %s, want %s", w.Reason, WakeGameOver)
	}
	if _, err := as.RequestArbitration(ctx, over.ID, ""); err != nil {
		t.Fatal(err)
	}
	if w, err := as.Look(ctx, over.ID, nil); err != nil || w.Reason != WakeTimeout {
		t.Errorf("after the request: %v, %s; want timeout (the arbiter is asked)", err, w.Reason)
	}

	// An expired challenge: nothing left to do.
	gone := testkit.NewMatch(a, b, "chess", "", real-match.ChallengeExpiry-10)
	publishAll(t, r, gone)
	if w := wait(seat(a, nil), gone.ID); w.Reason != WakeExpired || !Terminal(w.Reason) {
		t.Errorf("expired challenge: woke %s", w.Reason)
	}
}

// TestTrapStaleOffer is trap 2: an offer names a position; once the game
// has moved on from it, it is no offer any more (the same signature would
// not count), so Status shows none and Wait does not wake for it.
func TestTrapStaleOffer(t *testing.T) {
	ctx := context.Background()
	r := startRelay(t)
	a, b := fastSeats([]string{r.URL()}, 5*time.Second)
	ch, _ := a.Challenge(ctx, "chess", "")
	id := ch.Match
	if _, err := b.Accept(ctx, id); err != nil {
		t.Fatal(err)
	}
	offer, err := a.Agree(ctx, id, "draw")
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Wait(ctx, id, WaitOptions{Timeout: testkit.Scale(time.Minute)})
	if err != nil || w.Reason != WakeOffer || w.Status.Offer == nil || w.Status.Offer.Event != offer.Event {
		t.Fatalf("offer: %v %+v", err, w)
	}
	if _, err := a.Move(ctx, id, "e4"); err != nil {
		t.Fatal(err)
	}
	w, err = b.Wait(ctx, id, WaitOptions{Timeout: testkit.Scale(time.Minute)})
	if err != nil || w.Reason != WakeMyTurn || w.Status.Offer != nil {
		t.Fatalf("after the move: %v, woke %s with offer %+v", err, w.Reason, w.Status.Offer)
	}
	// Two plies on, the draw offer still shows nowhere.
	if _, err := b.Move(ctx, id, "e5"); err != nil {
		t.Fatal(err)
	}
	snap, err := b.Read(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if stt := snap.Status(b.Me(), snap.At); stt.Offer != nil || len(stt.Signatures) != 1 {
		t.Fatalf("two plies on: offer %+v, signatures %+v", stt.Offer, stt.Signatures)
	}
}

// TestTrapOfferWakesOnce is trap 2: an offer left unanswered wakes one
// wait of the key, in this process or the next one (the memory is beside
// the lock), not every wait for the rest of the game; a new offer wakes
// again.
func TestTrapOfferWakesOnce(t *testing.T) {
	ctx := context.Background()
	r := startRelay(t)
	dir := t.TempDir()
	a, b := fastSeats([]string{r.URL()}, 5*time.Second)
	b.LockDir = dir
	ch, _ := a.Challenge(ctx, "gomoku", "")
	id := ch.Match
	if _, err := b.Accept(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Move(ctx, id, "h8"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Move(ctx, id, "a1"); err != nil {
		t.Fatal(err)
	}
	// On its own turn, a offers itself the win.
	win, err := a.Agree(ctx, id, match.First)
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Wait(ctx, id, WaitOptions{Timeout: testkit.Scale(time.Minute)})
	if err != nil || w.Reason != WakeOffer || w.Status.Offer.Event != win.Event {
		t.Fatalf("first wait: %v %+v", err, w)
	}
	// Another process of b's key: same lock directory, its own memory.
	again := &Seat{Relays: b.Relays, Key: b.Key, Timeout: b.Timeout, Now: b.Now, LockDir: dir}
	if w, err := again.Look(ctx, id, nil); err != nil || w.Reason != WakeTimeout || w.Status.Offer == nil {
		t.Fatalf("look: %v, %s; want timeout with the offer still in the status", err, w.Reason)
	}
	// Its wait has read the match (and would have woken for the old offer
	// then) before a replaces the offer with a draw: only the new one
	// wakes it.
	read := make(chan struct{})
	var once sync.Once
	woke := make(chan *Woke, 1)
	go func() {
		w, err := again.Wait(ctx, id, WaitOptions{Timeout: testkit.Scale(time.Minute), ProgressEvery: 50 * time.Millisecond,
			Progress: func(p Progress) {
				if p.Events > 0 {
					once.Do(func() { close(read) })
				}
			}})
		if err != nil {
			t.Error(err)
		}
		woke <- w
	}()
	select {
	case <-read:
	case w := <-woke:
		t.Fatalf("second wait woke for %+v before the new offer; the old one already woke one", w)
	}
	draw, err := a.Agree(ctx, id, match.Draw)
	if err != nil {
		t.Fatal(err)
	}
	if w := <-woke; w == nil || w.Reason != WakeOffer || w.Status.Offer.Event != draw.Event {
		t.Fatalf("second wait: %+v, want the new offer %s (the old one, %s, already woke one)", w, draw.Event, win.Event)
	}
}

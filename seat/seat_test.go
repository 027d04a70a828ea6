package seat

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
	"vesper/relayd"
)

func startRelay(t *testing.T) *relayd.Relay {
	t.Helper()
	r, err := relayd.Start(context.Background(), relayd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// seats' timeout is scaled by $VESPER_TEST_SCALE.
func seats(relays []string, timeout time.Duration) (*Seat, *Seat) {
	timeout = testkit.Scale(timeout)
	return &Seat{Relays: relays, Key: testkit.Key("seat-a"), Timeout: timeout},
		&Seat{Relays: relays, Key: testkit.Key("seat-b"), Timeout: timeout}
}

// fastSeats share a clock that moves one second on every reading, so a game
// needs no real second between its events (section 7) and the tests stay
// fast. Both seats read the same clock, as two agents on one machine do.
func fastSeats(relays []string, timeout time.Duration) (*Seat, *Seat) {
	var mu sync.Mutex
	t := time.Now()
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Second)
		return t
	}
	a, b := seats(relays, timeout)
	a.Now, b.Now = clock, clock
	return a, b
}

func refusal(t *testing.T, err error, rule string) *Refusal {
	t.Helper()
	var r *Refusal
	if !errors.As(err, &r) || r.Rule != rule {
		t.Fatalf("want refusal %s, got %v", rule, err)
	}
	return r
}

// TestSeatFoolsMateWithWait plays a game through the seat alone: each side
// waits for its turn and picks its move from legal_moves.
func TestSeatFoolsMateWithWait(t *testing.T) {
	ctx := context.Background()
	r := startRelay(t)
	a, b := fastSeats([]string{r.URL()}, 5*time.Second)
	ch, err := a.Challenge(ctx, "chess", "")
	if err != nil {
		t.Fatal(err)
	}
	id := ch.Match
	if _, err := b.Accept(ctx, id); err != nil {
		t.Fatal(err)
	}
	script := []string{"f2f3", "e7e5", "g2g4", "d8h4"}
	for i, want := range script {
		s := a
		if i%2 == 1 {
			s = b
		}
		woke, err := s.Wait(ctx, id, WaitOptions{Timeout: testkit.Scale(10 * time.Second)})
		if err != nil {
			t.Fatal(err)
		}
		if woke.Reason != WakeMyTurn || woke.Status.Ply != i+1 {
			t.Fatalf("ply %d: woke %s at ply %d", i+1, woke.Reason, woke.Status.Ply)
		}
		found := ""
		for _, m := range woke.Status.LegalMoves {
			if m.UCI == want {
				found = m.SAN
			}
		}
		if found == "" {
			t.Fatalf("%s not in legal_moves", want)
		}
		rep, err := s.Move(ctx, id, found)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Move != want || rep.Ply != i+1 {
			t.Fatalf("reply %+v", rep)
		}
	}
	for _, s := range []*Seat{a, b} {
		woke, err := s.Wait(ctx, id, WaitOptions{Timeout: testkit.Scale(10 * time.Second)})
		if err != nil || woke.Reason != WakeGameOver || !woke.Status.MustSign {
			t.Fatalf("after mate: %v %+v", err, woke)
		}
		if _, err := s.SignResult(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := a.Read(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if st := snap.State; !st.Final || st.Reason != match.ReasonCheckmate || st.Result != match.Second {
		t.Fatalf("final state %+v", st.Summary(0))
	}
	// Signing again is "already", not a refusal, and posts nothing.
	n := r.Count()
	rep, err := a.SignResult(ctx, id)
	if err != nil || !rep.Already || r.Count() != n {
		t.Fatalf("second signature: %v %+v", err, rep)
	}
}

// TestSeatRefusalsComeFromTheFold: every refusal is the fold's token, with
// the context to retry, and publishes nothing.
func TestSeatRefusalsComeFromTheFold(t *testing.T) {
	ctx := context.Background()
	r := startRelay(t)
	a, b := fastSeats([]string{r.URL()}, 5*time.Second)
	ch, _ := a.Challenge(ctx, "chess", "")
	id := ch.Match
	_, err := a.Accept(ctx, id)
	refusal(t, err, match.IgnAcceptSelf)
	// The challenger may move first: the move is held until the accept, and
	// posting it again is "already".
	if rep, err := a.Move(ctx, id, "e4"); err != nil || !strings.Contains(rep.Note, "held") {
		t.Fatalf("held move: %v %+v", err, rep)
	}
	if rep, err := a.Move(ctx, id, "e2e4"); err != nil || !rep.Already {
		t.Fatalf("held move again: %v %+v", err, rep)
	}
	if _, err := b.Accept(ctx, id); err != nil {
		t.Fatal(err)
	}
	rep, err := b.Accept(ctx, id)
	if err != nil || !rep.Already {
		t.Fatalf("accept again: %v %+v", err, rep)
	}
	n := r.Count()
	rf := refusal(t, func() error { _, err := a.Move(ctx, id, "d2d4"); return err }(), match.IgnWrongPlayer)
	if rf.ToMove == nil || rf.ToMove.Role != match.Second || rf.Ply != 2 || rf.Deadline == nil || len(rf.LegalMoves) != 0 {
		t.Fatalf("refusal context %+v", rf)
	}
	refusal(t, func() error { _, err := b.Move(ctx, id, "e7e4"); return err }(), match.IgnIllegal)
	refusal(t, func() error { _, err := a.SignResult(ctx, id); return err }(), RuleNotOver)
	refusal(t, func() error { _, err := b.ClaimTimeout(ctx, id); return err }(), match.IgnClaimInvalid)
	refusal(t, func() error { _, err := a.ClaimTimeout(ctx, id); return err }(), match.IgnClaimPremature)
	refusal(t, func() error { _, err := a.RequestArbitration(ctx, id, ""); return err }(), match.IgnRequestInvalid)
	if r.Count() != n {
		t.Fatalf("a refusal published: %d events, want %d", r.Count(), n)
	}
	// Whitespace is trimmed; the retried move is "already".
	if rep, err := b.Move(ctx, id, " e5\n"); err != nil || rep.Move != "e7e5" || rep.Ply != 2 {
		t.Fatalf("move: %v %+v", err, rep)
	}
	if rep, err := b.Move(ctx, id, "e7e5"); err != nil || !rep.Already || rep.Ply != 2 {
		t.Fatalf("retried move: %v %+v", err, rep)
	}
	// An offer is seen by the other player, and accepted.
	if _, err := a.Agree(ctx, id, "draw"); err != nil {
		t.Fatal(err)
	}
	snap, _ := b.Read(ctx, id)
	stt := snap.Status(b.Me(), time.Now().Unix())
	if stt.Offer == nil || stt.Offer.Result.Result != match.Draw || stt.Offer.Role != match.First {
		t.Fatalf("offer not shown: %+v", stt.Offer)
	}
	rep, err = b.Agree(ctx, id, "draw")
	if err != nil || !strings.Contains(rep.Note, "final") || !rep.Status.Final {
		t.Fatalf("accept offer: %v %+v", err, rep)
	}
	refusal(t, func() error { _, err := a.Move(ctx, id, "d2d4"); return err }(), match.IgnGameOver)
}

// TestSeatPromotionNeedsThePiece is bug 1: a promotion without its piece
// is refused whatever its spelling; with the piece it is posted as UCI.
func TestSeatPromotionNeedsThePiece(t *testing.T) {
	now := time.Now().Unix() - 100
	m := testkit.NewMatch(testkit.Key("pa"), testkit.Key("pb"), "chess", "", now)
	m.Accept(now)
	m.Play([]string{"a2a4", "b7b5", "a4b5", "a7a6", "b5a6", "c8b7", "a6a7", "b7c6"}, now+1, 1)
	st, err := match.Fold(m.ID, m.Events, nil)
	if err != nil || st.Plies() != 8 {
		t.Fatalf("fold: %v %v", err, st.Ignored)
	}
	for _, in := range []string{"a7b8", "a7-b8", "axb8", "axb8+", "a7b8k", "Pa7b8"} {
		if _, r := canonical(st, in); r == nil || r.Rule != RulePromotion {
			t.Errorf("%q: want %s, got %v", in, RulePromotion, r)
		}
	}
	for in, want := range map[string]string{"a7b8q": "a7b8q", "axb8=Q": "a7b8q", "axb8=N+": "a7b8n", "a7b8r": "a7b8r", "Pa7b8b": "a7b8b", "axb8Q": "a7b8q"} {
		if got, r := canonical(st, in); r != nil || got != want {
			t.Errorf("%q: got %q %v, want %q", in, got, r, want)
		}
	}
}

// TestSeatStampsNeverAhead is bug 2: fast play never stamps ahead of the
// clock; an event after one stamped far ahead is refused.
func TestSeatStampsNeverAhead(t *testing.T) {
	ctx := context.Background()
	r := startRelay(t)
	a, b := seats([]string{r.URL()}, 5*time.Second)
	ch, _ := a.Challenge(ctx, "gomoku", "")
	if _, err := b.Accept(ctx, ch.Match); err != nil {
		t.Fatal(err)
	}
	moves := []string{"h8", "a1"}
	for i, mv := range moves {
		s := a
		if i%2 == 1 {
			s = b
		}
		rep, err := s.Move(ctx, ch.Match, mv)
		if err != nil {
			t.Fatal(err)
		}
		if at := int64(rep.Status.LastUsed); at > time.Now().Unix() {
			t.Fatalf("ply %d stamped %d, ahead of the clock", i+1, at)
		}
	}
	snap, _ := a.Read(ctx, ch.Match)
	if snap.State.Plies() != 2 {
		t.Fatalf("plies %d, ignored %v", snap.State.Plies(), snap.State.Ignored)
	}
	// An opponent stamping two minutes ahead: the fold counts its move
	// (within rule 5's slack), and the seat refuses to follow it.
	m := testkit.NewMatch(a.Key, b.Key, "chess", "", time.Now().Unix()-10)
	m.Accept(time.Now().Unix() - 5)
	m.Move(a.Key, 1, "e2e4", time.Now().Unix()+120)
	for _, ev := range m.Events {
		if err := r.Publish(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	refusal(t, func() error { _, err := b.Move(ctx, m.ID, "e7e5"); return err }(), RuleStampAhead)
}

// TestSeatChallengesAreFresh is bug 4: two challenges in one second are two
// matches.
func TestSeatChallengesAreFresh(t *testing.T) {
	ctx := context.Background()
	r := startRelay(t)
	fixed := time.Unix(time.Now().Unix(), 0)
	a := &Seat{Relays: []string{r.URL()}, Key: testkit.Key("seat-a"), Now: func() time.Time { return fixed }}
	x, err := a.Challenge(ctx, "chess", "")
	if err != nil {
		t.Fatal(err)
	}
	y, err := a.Challenge(ctx, "chess", "")
	if err != nil {
		t.Fatal(err)
	}
	if x.Match == y.Match {
		t.Fatal("two challenges in the same second got the same id")
	}
	// A challenge the fold would not make a match of is not posted.
	n := r.Count()
	_, err = a.Challenge(ctx, "chess", nostr.Npub(a.Me()))
	refusal(t, err, RuleInvalidChallenge)
	if r.Count() != n {
		t.Fatal("the self-invite was published")
	}
}

// TestSeatReadsPastDeadRelays is bug 3: a dead relay and a black hole
// beside a live one; reads and actions succeed within the timeout and name
// the relays that did not answer.
//
// The per-relay timeout is the live relay's budget too, so it is 2 s
// (scaled): 500 ms failed on a loaded machine. The bound on the whole is
// four actions' timeouts and as much again, and far under what the black
// hole would hold an action without one (forever; Wait's own timeout).
func TestSeatReadsPastDeadRelays(t *testing.T) {
	testkit.QuickLoopSkips(t)
	ctx := context.Background()
	r := startRelay(t)
	relays := []string{testkit.DeadRelay(t), testkit.BlackHole(t), r.URL()}
	const timeout = 2 * time.Second
	a, b := fastSeats(relays, timeout)
	start := time.Now()
	ch, err := a.Challenge(ctx, "chess", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Accept(ctx, ch.Match); err != nil {
		t.Fatal(err)
	}
	snap, err := b.Read(ctx, ch.Match)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Answered) != 1 || len(snap.Failed) != 2 || !snap.State.Accepted {
		t.Fatalf("answered %v failed %v", snap.Answered, snap.Failed)
	}
	woke, err := a.Wait(ctx, ch.Match, WaitOptions{Timeout: testkit.Scale(time.Minute)})
	if err != nil || woke.Reason != WakeMyTurn {
		t.Fatalf("wait: %v %+v", err, woke)
	}
	if d := time.Since(start); d > testkit.Scale(8*timeout) {
		t.Fatalf("took %v: the black hole held an action past its timeout", d)
	}
	// Only dead relays: a relay error, not a refusal.
	only := &Seat{Relays: relays[:2], Key: a.Key, Timeout: testkit.Scale(time.Second)}
	var re *RelayError
	if _, err := only.Read(ctx, ch.Match); !errors.As(err, &re) || len(re.Failed) != 2 {
		t.Fatalf("dead relays only: %v", err)
	}
	// A match no relay has is not found.
	var nf *NotFoundError
	if _, err := a.Read(ctx, strings.Repeat("ab", 32)); !errors.As(err, &nf) {
		t.Fatalf("missing match: %v", err)
	}
}

// TestSeatWaitSurvivesRelayRestart: the subscription is reopened after the
// relay drops every connection, and the move made meanwhile wakes Wait.
func TestSeatWaitSurvivesRelayRestart(t *testing.T) {
	ctx := context.Background()
	r := startRelay(t)
	a, b := fastSeats([]string{r.URL()}, 5*time.Second)
	ch, _ := a.Challenge(ctx, "gomoku", "")
	b.Accept(ctx, ch.Match)
	if _, err := a.Move(ctx, ch.Match, "h8"); err != nil {
		t.Fatal(err)
	}
	done := make(chan *Woke, 1)
	var progressed sync.Once
	live := make(chan struct{})
	go func() {
		woke, err := a.Wait(ctx, ch.Match, WaitOptions{Timeout: testkit.Scale(20 * time.Second), ProgressEvery: 50 * time.Millisecond,
			Progress: func(p Progress) {
				if p.Connected > 0 {
					progressed.Do(func() { close(live) })
				}
			}})
		if err != nil {
			t.Error(err)
		}
		done <- woke
	}()
	select {
	case <-live:
	case <-time.After(testkit.Scale(10 * time.Second)):
		t.Fatal("wait never went live")
	}
	r.DropConnections()
	if _, err := b.Move(ctx, ch.Match, "a1"); err != nil {
		t.Fatal(err)
	}
	select {
	case w := <-done:
		if w == nil || w.Reason != WakeMyTurn || w.Status.Ply != 3 {
			t.Fatalf("woke %+v", w)
		}
	case <-time.After(testkit.Scale(20 * time.Second)):
		t.Fatal("wait did not wake after the relay dropped")
	}
}

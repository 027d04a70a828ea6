package match

import (
	"testing"

	"vesper/internal/testkit"
	"vesper/nostr"
)

// TestSection2ClockAtTheDeadlineSecond: one second before the pending
// clock's last second, at it, and one after, Clock.RanOut says what every
// rule that reads the clock does: a move is late, a timeout claim counts,
// a ruling can be correct and a request counts, all strictly after the
// last second (section 2, rule 6, Results and Arbitration). The entries
// the fold lists carry the clock's start and deadline as values.
func TestSection2ClockAtTheDeadlineSecond(t *testing.T) {
	acc := t0 + 60
	m := gomokuMatch()
	m.Move(alice, 1, "h8", acc+5)
	m.Move(bob, 2, "h9", acc+10)
	st := fold(t, m)
	clock := st.Clock()
	start, deadline := acc+10, acc+10+MoveClock
	if clock.Start() != start || clock.Deadline() != deadline || st.ClockStart() != start || st.Deadline() != deadline {
		t.Fatalf("clock %+v: start %d deadline %d, want %d and %d", clock, clock.Start(), clock.Deadline(), start, deadline)
	}
	for _, at := range []int64{deadline - 1, deadline, deadline + 1} {
		ranOut := at > deadline
		if clock.RanOut(at) != ranOut || clock.DeadlinePassed(at) != ranOut {
			t.Errorf("at deadline%+d: RanOut %v, DeadlinePassed %v, want %v", at-deadline, clock.RanOut(at), clock.DeadlinePassed(at), ranOut)
		}
		move := st.Check(testkit.Sign(alice, nostr.NewMove(m.ID, 3, "h7", at)), at)
		if late := move != nil && move.Token == IgnLate; late != ranOut || (!late && move != nil) {
			t.Errorf("at deadline%+d: a move gets %+v, want late %v", at-deadline, move, ranOut)
		}
		claim := st.TimeoutWin()
		premature := st.Check(testkit.Sign(bob, nostr.NewResult(m.ID, claim, at)), at)
		if (premature == nil) != ranOut || premature != nil && premature.Token != IgnClaimPremature {
			t.Errorf("at deadline%+d: a timeout claim gets %+v, want counted %v", at-deadline, premature, ranOut)
		}
		if _, ok := st.CorrectRuling(at); ok != ranOut {
			t.Errorf("at deadline%+d: a correct ruling exists %v, want %v", at-deadline, ok, ranOut)
		}
		request := st.Check(testkit.Sign(alice, nostr.NewRequest(m.ID, "", at)), at)
		if (request == nil) != ranOut {
			t.Errorf("at deadline%+d: a request gets %+v, want counted %v", at-deadline, request, ranOut)
		}
		for _, ig := range []*Ignored{move, premature} {
			if ig != nil && (ig.ClockStart != start || ig.Deadline != deadline) {
				t.Errorf("at deadline%+d: %s carries start %d, deadline %d; want %d, %d", at-deadline, ig.Token, ig.ClockStart, ig.Deadline, start, deadline)
			}
		}
		if request != nil && request.Deadline != deadline {
			t.Errorf("at deadline%+d: the request's deadline %d, want %d", at-deadline, request.Deadline, deadline)
		}
	}
}

// TestClockAfterTheEnd: a game that is over has no running clock; its
// deadline is the end + 24 hours, passed strictly after that second.
func TestClockAfterTheEnd(t *testing.T) {
	m := gomokuMatch()
	last := m.Play(fiveMoves, t0+100, 10)
	clock := fold(t, m).Clock()
	deadline := last + MoveClock
	if !clock.Over || clock.Deadline() != deadline {
		t.Fatalf("clock %+v: deadline %d, want %d", clock, clock.Deadline(), deadline)
	}
	for _, at := range []int64{deadline - 1, deadline, deadline + 1} {
		if clock.RanOut(at) {
			t.Errorf("at deadline%+d: the clock of a finished game ran out", at-deadline)
		}
		if clock.DeadlinePassed(at) != (at > deadline) {
			t.Errorf("at deadline%+d: DeadlinePassed %v", at-deadline, clock.DeadlinePassed(at))
		}
	}
}

// TestClockChallengeExpiry: a challenge is open through its last second
// and an accept then still counts; one second later it has expired and an
// accept is outside the window (section 2, Challenge and Accept).
func TestClockChallengeExpiry(t *testing.T) {
	m := testkit.NewMatch(alice, bob, "chess", "", t0)
	st := fold(t, m)
	end := st.Clock().Expires()
	if end != t0+ChallengeExpiry {
		t.Fatalf("expires %d, want %d", end, t0+ChallengeExpiry)
	}
	for _, at := range []int64{end - 1, end, end + 1} {
		want := StatusOpen
		if at > end {
			want = StatusExpired
		}
		if got := st.Status(at); got != want {
			t.Errorf("at expiry%+d: status %s, want %s", at-end, got, want)
		}
		ig := st.Check(testkit.Sign(bob, nostr.NewAccept(m.ID, alice.PublicKey(), at)), at)
		if (ig != nil) != (want == StatusExpired) || ig != nil && ig.Token != IgnAcceptWindow {
			t.Errorf("at expiry%+d: an accept gets %+v", at-end, ig)
		}
	}
}

// TestMoveDeadlineOfATimeout: in a game won on time, MoveDeadline is still
// when the loser's clock ran out, while Deadline has moved to the end (the
// claim) + 24 hours: pages date the timeout by the first (issue 26, item 7).
func TestMoveDeadlineOfATimeout(t *testing.T) {
	acc := t0 + 60
	m := gomokuMatch()
	m.Move(alice, 1, "h8", acc+5)
	st := fold(t, m)
	ranOut := acc + MoveClock // ply 2's clock starts at the accept
	if st.Clock().MoveDeadline() != ranOut || st.Deadline() != ranOut {
		t.Fatalf("in progress: MoveDeadline %d, Deadline %d, want both %d", st.Clock().MoveDeadline(), st.Deadline(), ranOut)
	}
	claimAt := ranOut + 3600
	m.Result(alice, st.TimeoutWin(), claimAt)
	st = fold(t, m)
	if !st.Over || st.Reason != ReasonTimeout || st.EndedAt != claimAt {
		t.Fatalf("the claim did not end the game: over %v, reason %s, ended %d", st.Over, st.Reason, st.EndedAt)
	}
	if c := st.Clock(); c.MoveDeadline() != ranOut || c.Deadline() != claimAt+MoveClock {
		t.Errorf("over by timeout: MoveDeadline %d (want %d), Deadline %d (want %d)", c.MoveDeadline(), ranOut, c.Deadline(), claimAt+MoveClock)
	}
}

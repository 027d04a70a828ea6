package match

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"vesper/internal/testkit"
	"vesper/nostr"
)

// Issue 30, item 11: created_at near the top of its range. Section 1 takes
// created_at up to 2^53-1 (nostr.MaxCreatedAt), the last integer every JSON
// reader, nostr-tools included, reads as signed; the fold drops anything
// above it, whoever hands it over, and no time sum wraps.

const safeMax = int64(nostr.MaxCreatedAt)

// claimFor is a timeout claim by the second player on a match at ply 0.
func claimFor(st *State) nostr.Result {
	r := result(st, Second)
	r.Reason = string(ReasonTimeout)
	return r
}

func foldErr(m *testkit.Match, seen map[string]int64) (*State, error) {
	return Fold(m.ID, m.Events, seen)
}

// TestOverflowClocksAtTheBound: a match played right up to 2^53-1 follows
// the ordinary rules to the second, as it would anywhere else.
func TestOverflowClocksAtTheBound(t *testing.T) {
	acc := safeMax - MoveClock - 1 // ply 1's last second is safeMax-1
	m := testkit.NewMatch(alice, bob, "gomoku", "", acc-ChallengeExpiry)
	m.Accept(acc) // the last second of the challenge's week
	st := fold(t, m)
	if !st.Accepted {
		t.Fatalf("accept at the expiry second: %v", st.Ignored)
	}
	early := m.Result(bob, claimFor(st), safeMax-1)
	st = fold(t, m)
	if token(st, early) != IgnClaimPremature || st.Over {
		t.Fatalf("a claim at the deadline second: %v", st.Ignored)
	}
	valid := m.Result(bob, claimFor(st), safeMax)
	st = fold(t, m)
	if token(st, valid) != "" || !st.Final || st.FinalBy != FinalByTimeout || st.Result != Second {
		t.Fatalf("a claim one second later, at 2^53-1, wins: %+v", st.Summary(safeMax))
	}
}

// TestOverflowDeadlinePastTheBound: when the pending clock's deadline lies
// beyond 2^53-1, no claim can be stamped after it, so none wins, and the
// move stamped at 2^53-1 is on time.
func TestOverflowDeadlinePastTheBound(t *testing.T) {
	m := testkit.NewMatch(alice, bob, "gomoku", "", safeMax-1000)
	m.Accept(safeMax - 999) // expiry and deadline both past 2^53-1
	st := fold(t, m)
	claim := m.Result(bob, claimFor(st), safeMax)
	st = fold(t, m)
	if token(st, claim) != IgnClaimPremature || st.Over {
		t.Fatalf("claim at 2^53-1 with the deadline past it: %v", st.Ignored)
	}
	mv := m.Move(alice, 1, "h8", safeMax)
	st = fold(t, m)
	if token(st, mv) != "" || st.Plies() != 1 {
		t.Fatalf("move at 2^53-1: %v", st.Ignored)
	}
	if got := st.Status(math.MaxInt64); got != StatusActive {
		t.Fatalf("status at the largest now: %s", got)
	}
}

// TestOverflowDroppedAboveTheBound: an event stamped past 2^53-1, of any
// kind, is dropped as section 1 drops it: not an event of the match, not
// listed, not counted, and Check names why.
func TestOverflowDroppedAboveTheBound(t *testing.T) {
	times := []int64{safeMax + 1, safeMax + 2, 1 << 60, math.MaxInt64 - MoveClock, math.MaxInt64, -1, math.MinInt64}
	for _, at := range times {
		m := gomokuMatch()
		m.Move(alice, 1, "h8", t0+100)
		base := fold(t, m)
		r := result(base, Second)
		evs := []*nostr.Event{
			nostr.NewAccept(m.ID, alice.PublicKey(), at),
			nostr.NewMove(m.ID, 2, "h9", at),
			nostr.NewMove(m.ID, 2, nostr.ResignContent, at),
			nostr.NewResult(m.ID, claimFor(base), at),
			nostr.NewResult(m.ID, r, at),
			nostr.NewRequest(m.ID, "", at),
			nostr.NewRuling(m.ID, result(base, First), at),
		}
		for _, ev := range evs {
			m.Add(bob, ev)
			if ig := base.Check(ev, math.MaxInt64); ig == nil || ig.Token != IgnBadCreatedAt {
				t.Errorf("created_at %d, kind %d: Check = %+v, want %s", at, ev.Kind, ig, IgnBadCreatedAt)
			}
		}
		st := fold(t, m)
		if len(st.Events) != len(base.Events) || len(st.Ignored) != len(base.Ignored) ||
			st.Plies() != 1 || st.Over || len(st.Requests) != 0 || len(st.Sigs) != 0 {
			t.Fatalf("created_at %d: the fold used or listed a dropped event: %+v", at, st.Summary(t0))
		}
		// The incremental paths agree with the fold.
		for _, ev := range evs {
			inc := base.Clone()
			if !inc.Extend(ev, at) || !inc.Insert(ev, at) || len(inc.Ignored) != len(base.Ignored) || inc.Plies() != 1 {
				t.Fatalf("created_at %d, kind %d: Extend/Insert changed the state", at, ev.Kind)
			}
		}
	}
}

// TestOverflowChallengeAboveTheBound: a challenge stamped past 2^53-1 makes
// no match, whatever follows it.
func TestOverflowChallengeAboveTheBound(t *testing.T) {
	for _, at := range []int64{safeMax + 1, math.MaxInt64 - ChallengeExpiry, math.MaxInt64} {
		m := testkit.NewMatch(alice, bob, "gomoku", "", at)
		m.Accept(at)
		_, err := foldErr(m, nil)
		var nm *NoMatchError
		if !errors.As(err, &nm) {
			t.Errorf("challenge at %d: got %v, want no match", at, err)
		}
	}
}

// TestOverflowTimeoutClaimNearInt64Max is the attack of item 11: on the old
// fold a deadline near the int64 maximum wrapped into the past, so a claim
// stamped a second after the accept won on time. Every such event is now
// dropped, and a Clock built with those times (as a reader may build one)
// holds its deadline at the maximum instead of wrapping.
func TestOverflowTimeoutClaimNearInt64Max(t *testing.T) {
	ch := int64(math.MaxInt64 - ChallengeExpiry)
	acc := int64(math.MaxInt64 - 1000)
	m := testkit.NewMatch(alice, bob, "gomoku", "", ch)
	m.Accept(acc)
	m.Add(bob, nostr.NewResult(m.ID, nostr.Result{Result: Second, Reason: string(ReasonTimeout), Plies: 0, FinalHash: emptyGomokuHash(t)}, acc+1))
	if st, err := foldErr(m, nil); err == nil && st.Final {
		t.Fatalf("a claim a second after the accept won: %+v", st.Summary(acc+1))
	}
	c := Clock{CreatedAt: ch, Accepted: true, AcceptAt: acc}
	if c.Deadline() != math.MaxInt64 || c.RanOut(acc+1) || c.RanOut(math.MaxInt64) || c.DeadlinePassed(math.MaxInt64) {
		t.Fatalf("clock near the int64 maximum: deadline %d", c.Deadline())
	}
	if got := (Clock{CreatedAt: math.MaxInt64 - 1}).Status(math.MaxInt64); got != StatusOpen || (Clock{CreatedAt: math.MaxInt64}).Expires() != math.MaxInt64 {
		t.Fatalf("expiry near the int64 maximum wrapped: %s", got)
	}
	over := Clock{Accepted: true, Over: true, EndedAt: math.MaxInt64 - 1}
	if over.Deadline() != math.MaxInt64 || over.DeadlinePassed(math.MaxInt64) {
		t.Fatalf("arbitration deadline after the end wrapped: %d", over.Deadline())
	}
}

func emptyGomokuHash(t *testing.T) string {
	m := gomokuMatch()
	return fold(t, m).FinalHash()
}

// TestOverflowSeenAtAnyInt64: rule 5 compares created_at with seen_at + 300
// without the sum, so a seen_at at the int64 maximum (a match.json may say
// so) counts the move instead of wrapping into "stamped in the future".
func TestOverflowSeenAtAnyInt64(t *testing.T) {
	m := testkit.NewMatch(alice, bob, "gomoku", "", t0)
	held := m.Move(alice, 1, "h8", t0+10) // before the accept: held
	m.Accept(t0 + 60)
	mv := m.Move(bob, 2, "h9", t0+100)
	for _, seen := range []int64{math.MaxInt64, math.MaxInt64 - FutureSlack + 1} {
		st, err := foldErr(m, map[string]int64{held.ID: seen, mv.ID: seen})
		if err != nil || st.Plies() != 2 {
			t.Fatalf("seen_at %d: %v %v", seen, err, st.Ignored)
		}
	}
	// At the other end nothing wraps either: a move is in the future of a
	// seen_at at the int64 minimum.
	st, err := foldErr(m, map[string]int64{mv.ID: math.MinInt64})
	if err != nil || token(st, mv) != IgnFuture {
		t.Fatalf("seen_at at the minimum: %v %v", err, st.Ignored)
	}
}

// TestOverflowMatchFile: in a match.json an event stamped past 2^53-1 is
// dropped by section 1 like a bad signature (counted in Dropped, never
// listed), and the summary is the one without it.
func TestOverflowMatchFile(t *testing.T) {
	m := gomokuMatch()
	m.Move(alice, 1, "h8", t0+100)
	want := fold(t, m).Summary(t0 + 100)
	m.Move(bob, 2, "h9", safeMax+1)
	m.Result(bob, claimFor(fold(t, m)), math.MaxInt64)
	raw := make([]json.RawMessage, len(m.Events))
	for i, ev := range m.Events {
		raw[i] = nostr.MarshalEvent(ev)
	}
	data, err := json.Marshal(map[string]any{"match": m.ID, "events": raw})
	if err != nil {
		t.Fatal(err)
	}
	f, err := ParseFile(data)
	if err != nil || f.Dropped != 2 {
		t.Fatalf("ParseFile: %v, dropped %d, want 2", err, f.Dropped)
	}
	st, err := Fold(f.Match, f.Events, f.SeenAt)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(st.Summary(f.Now(st)))
	w, _ := json.Marshal(want)
	if string(got) != string(w) {
		t.Fatalf("summary\n got %s\nwant %s", got, w)
	}
}

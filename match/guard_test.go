package match

import (
	"errors"
	"testing"

	"vesper/internal/testkit"
	"vesper/nostr"
)

// Tests that guard clauses a mutant of the fold broke with every other
// test passing (scripts/mutate, issue 39). Each names the clause of
// PROTOCOL.md it holds.

// Section 2, Before the accept: only the challenger's own legal ply-1
// board move, stamped at or after the challenge and within rule 5, is
// held. Any other early move is ignored for good, and must not take the
// held slot: the challenger's real move, which comes after it, is the one
// counted at the accept.
func TestSection2OnlyTheChallengersMoveIsHeld(t *testing.T) {
	cases := []struct {
		name  string
		by    nostr.SecretKey
		ply   int
		move  string
		at    int64
		seen  int64 // 0: seen at created_at
		token string
	}{
		{"a stranger's move", carol, 1, "h8", t0 + 5, 0, IgnNotAccepted},
		{"the second player's move", bob, 1, "h8", t0 + 5, 0, IgnNotAccepted},
		{"the challenger's ply 2", alice, 2, "h8", t0 + 5, 0, IgnNotAccepted},
		{"the challenger's resign", alice, 1, nostr.ResignContent, t0 + 5, 0, IgnNotAccepted},
		{"stamped before the challenge", alice, 1, "h8", t0 - 1, 0, IgnNotAccepted},
		{"stamped past rule 5", alice, 1, "h8", t0 + 5, t0 + 5 - FutureSlack - 1, IgnFuture},
		{"an illegal move", alice, 1, "z99", t0 + 5, 0, IgnIllegal},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := testkit.NewMatch(alice, bob, "gomoku", "", t0)
			early := m.Move(c.by, c.ply, c.move, c.at)
			real := m.Move(alice, 1, "i9", t0+10)
			seen := map[string]int64{}
			if c.seen != 0 {
				seen[early.ID] = c.seen
			}
			st, err := Fold(m.ID, m.Events, seen)
			if err != nil {
				t.Fatal(err)
			}
			if got := token(st, early); got != c.token {
				t.Fatalf("early move: got %q, want %q (%v)", got, c.token, st.Ignored)
			}
			if got := token(st, real); got != IgnHeld {
				t.Fatalf("the challenger's move: got %q, want it held (%v)", got, st.Ignored)
			}
			m.Accept(t0 + 50)
			if st, err = Fold(m.ID, m.Events, seen); err != nil {
				t.Fatal(err)
			}
			if st.Plies() != 1 || st.Moves[0] != "i9" || st.MoveEvents[0] != real.ID {
				t.Fatalf("after the accept: moves %v, want the challenger's i9 (%v)", st.Moves, st.Ignored)
			}
			if got := token(st, early); got != c.token {
				t.Fatalf("early move after the accept: got %q, want %q", got, c.token)
			}
		})
	}
}

// Section 2: the match id is the challenge's event id, and a challenge is
// of kind 4420: an event of another kind that carries a challenge's tags
// and content holds no match.
func TestSection2MatchIDNamesAChallenge(t *testing.T) {
	ev := &nostr.Event{Kind: 1, CreatedAt: nostr.Timestamp(t0), Content: `{"game":"chess"}`,
		Tags: nostr.Tags{{"t", nostr.GamesTopic}}}
	testkit.Sign(alice, ev)
	_, err := Fold(ev.ID, []*nostr.Event{ev}, nil)
	var nm *NoMatchError
	if !errors.As(err, &nm) {
		t.Fatalf("a kind-1 event as the match id: got %v, want no match", err)
	}
}

// Section 2, Results: a timeout claim is valid only if the game is not
// over; a claim after an end by rule is invalid for that reason (not
// premature: no clock runs after the end).
func TestSection2TimeoutClaimAfterTheEnd(t *testing.T) {
	m := gomokuMatch()
	last := m.Play(fiveMoves, t0+100, 10)
	st := fold(t, m)
	// By the player not to move (alice made the five), naming herself, as
	// a valid claim would: only "the game is over" is wrong with it.
	r := result(st, First)
	r.Reason = string(ReasonTimeout)
	claim := m.Result(alice, r, last+MoveClock+1)
	st = fold(t, m)
	if got := token(st, claim); got != IgnClaimInvalid {
		t.Fatalf("claim on a game over by rule: got %q, want %q (%v)", got, IgnClaimInvalid, st.Ignored)
	}
}

// Section 2, Results: a timeout claim needs plies == count and the current
// position's final_hash, each on its own.
func TestSection2TimeoutClaimPliesAndHash(t *testing.T) {
	acc := t0 + 60
	cases := []struct {
		name   string
		change func(r *nostr.Result)
	}{
		{"plies one more, hash right", func(r *nostr.Result) { r.Plies++ }},
		{"plies right, hash of another position", func(r *nostr.Result) { r.FinalHash = hashString("gomoku:h8") }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := gomokuMatch()
			m.Move(alice, 1, "h8", acc+5)
			m.Move(bob, 2, "h9", acc+10)
			st := fold(t, m)
			r := result(st, Second)
			r.Reason = string(ReasonTimeout)
			c.change(&r)
			claim := m.Result(bob, r, acc+10+MoveClock+1)
			st = fold(t, m)
			if got := token(st, claim); got != IgnClaimInvalid || st.Over {
				t.Fatalf("got %q over=%v, want %q and the game going on", got, st.Over, IgnClaimInvalid)
			}
		})
	}
}

// Section 6: offline, "now" is the largest seen_at of the match's events,
// or created_at where seen_at is missing.
func TestSection6OfflineNow(t *testing.T) {
	m := gomokuMatch()
	acc := m.Events[1]
	move := m.Move(alice, 1, "h8", t0+100)
	st := fold(t, m)
	f := &File{SeenAt: map[string]int64{acc.ID: t0 + 500}}
	if got := f.Now(st); got != t0+500 {
		t.Fatalf("now = %d, want the accept's seen_at %d", got, t0+500)
	}
	f.SeenAt = map[string]int64{acc.ID: t0 + 61}
	if got := f.Now(st); got != int64(move.CreatedAt) {
		t.Fatalf("now = %d, want the move's created_at %d (no seen_at)", got, move.CreatedAt)
	}
}

// Section 6: without a match id, the file's single challenge is the
// match; with two, there is no way to tell which.
func TestSection6FindChallenge(t *testing.T) {
	a := testkit.NewMatch(alice, bob, "gomoku", "", t0)
	b := testkit.NewMatch(bob, alice, "chess", "", t0+1)
	if id, err := FindChallenge(a.Events); err != nil || id != a.ID {
		t.Fatalf("one challenge: got %q %v", id, err)
	}
	two := append(append([]*nostr.Event{}, a.Events...), b.Events...)
	var nm *NoMatchError
	if _, err := FindChallenge(two); !errors.As(err, &nm) {
		t.Fatalf("two challenges: got %v, want no match", err)
	}
	if id, err := FindChallenge(append(two[:1:1], a.Events[0])); err != nil || id != a.ID {
		t.Fatalf("the same challenge twice: got %q %v", id, err)
	}
}

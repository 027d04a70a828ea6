package match

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"vesper/internal/testkit"
	"vesper/nostr"
)

// junkMatch is a finished gomoku match with every kind of event a hostile
// network adds: extra accepts before and after the counted one, moves at
// the wrong ply, by a stranger, after the end; results and requests by a
// stranger, before the accept and after the result is final; an oversized
// move and one naming two matches.
func junkMatch() (*testkit.Match, []*nostr.Event) {
	m := testkit.NewMatch(alice, bob, "gomoku", "", t0)
	var junk []*nostr.Event
	junk = append(junk, m.Add(carol, nostr.NewAccept(m.ID, alice.PublicKey(), t0+30)))
	junk = append(junk, m.Add(carol, nostr.NewResult(m.ID, nostr.Result{Result: "draw", Reason: "agreement"}, t0+40)))
	// The challenger's ply-1 move before the accept is held, then counted;
	// its later ply-1 move is then at the wrong ply.
	m.Move(alice, 1, "h8", t0+50)
	m.Accept(t0 + 60)
	end := m.Play(fiveMoves, t0+100, 10)
	res := nostr.Result{Result: "first", Reason: "five_in_a_row", Plies: len(fiveMoves), FinalHash: fold0(m).FinalHash()}
	m.Result(alice, res, end+10)
	m.Result(bob, res, end+20)
	for i := int64(0); i < 6; i++ {
		at := t0 + 65 + i*17
		junk = append(junk, m.Add(carol, nostr.NewAccept(m.ID, alice.PublicKey(), at)))
		junk = append(junk, m.Move(carol, 1+int(i), "a9", at+1))
		junk = append(junk, m.Move(bob, 7, "b9", at+2))
		junk = append(junk, m.Add(carol, nostr.NewRequest(m.ID, "", at+3)))
		junk = append(junk, m.Add(carol, nostr.NewResult(m.ID, res, at+4)))
	}
	junk = append(junk, m.Move(bob, 10, "c9", end+5))
	junk = append(junk, m.Add(alice, nostr.NewRequest(m.ID, "", end+30)))
	junk = append(junk, m.Result(bob, res, end+40))
	big := nostr.NewMove(m.ID, 3, strings.Repeat("x", nostr.MaxEventSize), t0+125)
	junk = append(junk, m.Add(carol, big))
	two := nostr.NewMove(m.ID, 2, "a5", t0+115)
	two.Tags = append(two.Tags, nostr.Tags{{"g", m.ID}}...)
	junk = append(junk, m.Add(carol, two))
	return m, junk
}

func fold0(m *testkit.Match) *State {
	st, err := Fold(m.ID, m.Events, nil)
	if err != nil {
		panic(err)
	}
	return st
}

// TestInsertEqualsFold (section 2: the same set of events, delivered in
// any order, yields the same state) feeds a match's events in random
// orders the way the daemon does (Extend, else Insert, else a re-fold) and
// compares each step with a fresh Fold of what has arrived.
func TestInsertEqualsFold(t *testing.T) {
	m, _ := junkMatch()
	challenge, rest := m.Events[0], m.Events[1:]
	rng := rand.New(rand.NewSource(13))
	inserted, refolds := 0, 0
	for round := 0; round < 60; round++ {
		order := append([]*nostr.Event(nil), rest...)
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		arrived := []*nostr.Event{challenge}
		st, err := Fold(m.ID, arrived, nil)
		if err != nil {
			t.Fatal(err)
		}
		for step, ev := range order {
			arrived = append(arrived, ev)
			want, _ := Fold(m.ID, arrived, nil)
			next := st.Clone()
			switch {
			case next.Extend(ev, int64(ev.CreatedAt)):
			case next.Insert(ev, int64(ev.CreatedAt)):
				inserted++
			default:
				refolds++
				next = want
			}
			switch {
			case round%3 == 2 && next.Final:
				next = next.Compact() // the daemon keeps final states compact
			case round%2 == 1:
				next = next.Lean() // and live ones lean
			}
			got, exp := next.Summary(t0+1e6), want.Summary(t0+1e6)
			if !reflect.DeepEqual(got, exp) {
				t.Fatalf("round %d step %d (event %s kind %d at %d): state differs from a fold\n got  %s\n want %s",
					round, step, ev.ID[:8], ev.Kind, ev.CreatedAt, MarshalLine(got), MarshalLine(exp))
			}
			if next.Events != nil && !reflect.DeepEqual(next.Events, want.Events) {
				t.Fatalf("round %d step %d: events out of fold order", round, step)
			}
			// The values a reader words a reason from, not only its text.
			if !reflect.DeepEqual(next.Ignored, want.Ignored) {
				t.Fatalf("round %d step %d: ignored entries differ from a fold\n got  %+v\n want %+v", round, step, next.Ignored, want.Ignored)
			}
			st = next
		}
	}
	if inserted == 0 {
		t.Fatal("Insert never placed an event: the out-of-order fast path is dead")
	}
	t.Logf("%d inserted, %d re-folds", inserted, refolds)
}

// TestInsertBackdatedAcceptsCostNoRefold is the drip attack of issue 13
// item 10: accepts stamped between the moves of a long match are placed
// without a re-fold.
func TestInsertBackdatedAcceptsCostNoRefold(t *testing.T) {
	m := testkit.NewMatch(alice, bob, "gomoku", "", t0)
	m.Accept(t0 + 60)
	m.Play(fiveMoves[:8], t0+100, 100)
	st := fold0(m)
	for i := 0; i < 50; i++ {
		ev := m.Add(testkit.Key(fmt.Sprint("drip", i)), nostr.NewAccept(m.ID, alice.PublicKey(), t0+61+int64(i)*13))
		if !st.Insert(ev, int64(ev.CreatedAt)) {
			t.Fatalf("accept %d: Insert refused, a re-fold would follow", i)
		}
	}
	got, want := st.Summary(t0), fold0(m).Summary(t0)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %s\nwant %s", MarshalLine(got), MarshalLine(want))
	}
}

// TestStubFoldsLikeItsEvent: the store keeps a stub for an event every
// match ignores for what it is (section 1's size limit, the g-tag rule);
// the fold lists the stub exactly as it lists the event.
func TestStubFoldsLikeItsEvent(t *testing.T) {
	m, junk := junkMatch()
	big, two := junk[len(junk)-2], junk[len(junk)-1]
	for _, ev := range []*nostr.Event{big, two} {
		if Stub(ev) == nil {
			t.Fatalf("event %s: no stub", ev.ID)
		}
	}
	var stubbed []*nostr.Event
	for _, ev := range m.Events {
		if s := Stub(ev); s != nil {
			if !IsStub(s) || s.ID != ev.ID || len(MarshalLine(s)) > 600 {
				t.Fatalf("stub of %s: %s", ev.ID, MarshalLine(s))
			}
			if err := nostr.Verify(s); err == nil {
				t.Fatal("a stub passes verification")
			}
			ev = s
		}
		stubbed = append(stubbed, ev)
	}
	want := fold0(m).Summary(t0)
	st, err := Fold(m.ID, stubbed, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Summary(t0); !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %s\nwant %s", MarshalLine(got), MarshalLine(want))
	}
	if Stub(m.Events[1]) != nil {
		t.Fatal("a plain accept was stubbed")
	}
	ch := nostr.NewChallenge("chess", "", t0)
	ch.Content = `{"game":"chess","pad":"` + strings.Repeat("y", nostr.MaxEventSize) + `"}`
	testkit.Sign(alice, ch)
	if _, err := Fold(ch.ID, []*nostr.Event{Stub(ch)}, nil); err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Fatalf("stub of an oversized challenge: got %v, want no match", err)
	}
}

func TestSummaryCapped(t *testing.T) {
	m, _ := junkMatch()
	full := fold0(m).Summary(t0)
	n := len(full.Ignored)
	c := full.Capped(5)
	if len(c.Ignored) != 5 || c.IgnoredOmitted != n-5 || c.Ignored[4] != full.Ignored[n-1] {
		t.Fatalf("capped: %d kept, %d omitted; want 5 and %d", len(c.Ignored), c.IgnoredOmitted, n-5)
	}
	if len(full.Ignored) != n {
		t.Fatal("Capped changed the full summary")
	}
	if strings.Contains(string(MarshalLine(full)), "ignored_omitted") {
		t.Fatal("a full summary prints ignored_omitted: verify's output would change")
	}
	if got := full.Capped(0); len(got.Ignored) != n {
		t.Fatal("max 0 should keep everything")
	}
	if got := fold0(m).SummaryCapped(t0, 5); !reflect.DeepEqual(got, c) {
		t.Fatalf("SummaryCapped differs from Summary().Capped: %s vs %s", MarshalLine(got), MarshalLine(c))
	}
}

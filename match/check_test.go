package match

import (
	"fmt"
	"testing"

	"vesper/internal/testkit"
	"vesper/nostr"
)

// checkBase is a match and the created_at of its last event, from which
// candidate events are stamped.
type checkBase struct {
	name string
	m    *testkit.Match
	last int64
}

func checkBases() []checkBase {
	var out []checkBase
	add := func(name string, m *testkit.Match) {
		last := m.T
		for _, ev := range m.Events {
			last = max(last, int64(ev.CreatedAt))
		}
		out = append(out, checkBase{name, m, last})
	}
	add("chess open", testkit.NewMatch(alice, bob, "chess", "", t0))
	add("chess invites bob", testkit.NewMatch(alice, bob, "chess", bob.PublicKey(), t0))
	held := testkit.NewMatch(alice, bob, "chess", "", t0)
	held.Move(alice, 1, "e2e4", t0+5)
	add("chess held move", held)
	two := testkit.NewMatch(alice, bob, "chess", "", t0)
	two.Accept(t0 + 60)
	two.Play([]string{"e2e4", "e7e5"}, t0+61, 1)
	add("chess two plies", two)
	mate := testkit.NewMatch(alice, bob, "chess", "", t0)
	mate.Accept(t0 + 60)
	mate.Play([]string{"f2f3", "e7e5", "g2g4", "d8h4"}, t0+61, 1)
	add("chess fool's mate", mate)
	signed := testkit.NewMatch(alice, bob, "chess", "", t0)
	signed.Accept(t0 + 60)
	signed.Play([]string{"f2f3", "e7e5", "g2g4", "d8h4"}, t0+61, 1)
	st, _ := Fold(signed.ID, signed.Events, nil)
	signed.Result(alice, st.Computed(), t0+70)
	add("chess mate signed by first", signed)
	final := testkit.NewMatch(alice, bob, "chess", "", t0)
	final.Accept(t0 + 60)
	final.Play([]string{"e2e4"}, t0+61, 1)
	fs, _ := Fold(final.ID, final.Events, nil)
	draw := nostr.Result{Result: Draw, Reason: string(ReasonAgreement), Plies: 1, FinalHash: fs.FinalHash()}
	final.Result(alice, draw, t0+70)
	final.Result(bob, draw, t0+71)
	add("chess agreed draw final", final)
	req := testkit.NewMatch(alice, bob, "chess", "", t0)
	req.Accept(t0 + 60)
	req.Move(alice, 1, "d2d4", t0+61)
	req.Request(alice, t0+61+MoveClock+5)
	add("chess request after timeout", req)
	g := gomokuMatch()
	g.Play([]string{"h8", "a1", "i8"}, t0+61, 1)
	add("gomoku three plies", g)
	five := gomokuMatch()
	five.Play(fiveMoves, t0+61, 1)
	add("gomoku five", five)
	return out
}

// checkCandidates are events a signer (honest or not) might post at t.
func checkCandidates(st *State, t int64) []*nostr.Event {
	var out []*nostr.Event
	keys := []nostr.SecretKey{alice, bob, carol}
	late := t + 2*MoveClock
	for _, k := range keys {
		out = append(out, testkit.Sign(k, nostr.NewAccept(st.Match, st.First, t)))
		out = append(out, testkit.Sign(k, nostr.NewAccept(st.Match, st.First, st.CreatedAt+ChallengeExpiry+1)))
		out = append(out, testkit.Sign(k, nostr.NewAccept(st.Match, carol.PublicKey(), t)))
		for _, ply := range []int{st.Plies(), st.Plies() + 1, st.Plies() + 2} {
			if ply < 1 {
				continue
			}
			for _, mv := range []string{"e2e4", "e7e5", "d7d5", "Nf3", "e8q", "resign", "h8", "i9", "a1", "--"} {
				for _, at := range []int64{t, late} {
					out = append(out, testkit.Sign(k, nostr.NewMove(st.Match, ply, mv, at)))
				}
			}
		}
		results := []nostr.Result{
			st.Computed(), st.TimeoutWin(),
			{Result: Draw, Reason: "agreement", Plies: st.Plies(), FinalHash: st.FinalHash()},
			{Result: First, Reason: "agreement", Plies: st.Plies(), FinalHash: st.FinalHash()},
			{Result: Second, Reason: "timeout", Plies: st.Plies(), FinalHash: st.FinalHash()},
			{Result: First, Reason: "timeout", Plies: st.Plies() + 1, FinalHash: st.FinalHash()},
			{Result: Draw, Reason: "agreement", Plies: st.Plies(), FinalHash: "00"},
		}
		for _, r := range results {
			if r.Result == "" {
				r.Result = Draw
			}
			for _, at := range []int64{t, late} {
				out = append(out, testkit.Sign(k, nostr.NewResult(st.Match, r, at)))
				out = append(out, testkit.Sign(k, nostr.NewRuling(st.Match, r, at)))
			}
		}
		bad := nostr.NewResult(st.Match, nostr.Result{}, t)
		bad.Content = `{"result":"draw"}`
		out = append(out, testkit.Sign(k, bad))
		for _, at := range []int64{t, late} {
			out = append(out, testkit.Sign(k, nostr.NewRequest(st.Match, "please", at)))
		}
	}
	// Two g tags, and an event of another match.
	two := nostr.NewMove(st.Match, st.Plies()+1, "e2e4", t)
	two.Tags = append(two.Tags, []string{"g", st.Match})
	out = append(out, testkit.Sign(alice, two))
	out = append(out, testkit.Sign(alice, nostr.NewMove("00"+st.Match[2:], st.Plies()+1, "e2e4", t)))
	return out
}

// TestCheckAgreesWithFold is the contract of Check (PROTOCOL.md section 2,
// every rule): for every candidate event, Check says it counts exactly when
// a full Fold with the event added counts it, and otherwise gives the
// fold's own token and detail.
func TestCheckAgreesWithFold(t *testing.T) {
	n, ignored := 0, map[string]int{}
	for _, b := range checkBases() {
		t.Run(b.name, func(t *testing.T) {
			st, err := Fold(b.m.ID, b.m.Events, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range checkCandidates(st, b.last+1) {
				for _, seen := range []int64{int64(ev.CreatedAt), int64(ev.CreatedAt) - 400} {
					n++
					got := st.Check(ev, seen)
					all := append(append([]*nostr.Event(nil), b.m.Events...), ev)
					after, err := Fold(b.m.ID, all, map[string]int64{ev.ID: seen})
					if err != nil {
						t.Fatal(err)
					}
					want := ""
					for _, i := range after.Ignored {
						if i.ID == ev.ID && i.Token != IgnHeld {
							want = i.Reason()
						}
					}
					if !nostr.HasMatchTag(ev, st.Match) {
						want = IgnNotOfMatch
					}
					gotS := ""
					if got != nil {
						gotS = got.Reason()
						ignored[got.Token]++
						if got.Token == IgnNotOfMatch {
							gotS = IgnNotOfMatch
						}
					}
					if gotS != want {
						t.Errorf("kind %d %q at %d seen %d: Check %q, fold %q", ev.Kind, ev.Content, ev.CreatedAt, seen, gotS, want)
					}
				}
			}
		})
	}
	// The candidates must reach every reason the fold has for these kinds,
	// or the comparison proves little.
	for _, tok := range []string{IgnBadG, IgnNotAccepted, IgnAcceptExtra, IgnAcceptBadP, IgnAcceptSelf, IgnAcceptNotInv,
		IgnAcceptWindow, IgnGameOver, IgnWrongPly, IgnWrongPlayer, IgnNotPlayer, IgnIllegal, IgnFuture, IgnLate,
		IgnMalformed, IgnAlreadyFinal, IgnClaimInvalid, IgnClaimPremature, IgnSigInconsistent, IgnRequestInvalid,
		IgnRulingNoRequest, IgnRulingIncorrect, IgnNotOfMatch} {
		if ignored[tok] == 0 {
			t.Errorf("no candidate was ignored with %s", tok)
		}
	}
	if n < 1000 {
		t.Fatalf("only %d candidates", n)
	}
}

// TestCheckLeavesStateAlone: asking must not change the answer to the next
// question, nor the state.
func TestCheckLeavesStateAlone(t *testing.T) {
	m := testkit.NewMatch(alice, bob, "chess", "", t0)
	m.Move(alice, 1, "e2e4", t0+5)
	st := fold(t, m)
	before := fmt.Sprint(st.Summary(t0))
	acc := testkit.Sign(bob, nostr.NewAccept(m.ID, alice.PublicKey(), t0+10))
	after, ig := st.Try(acc, t0+10)
	if ig != nil || after.Plies() != 1 || len(after.Ignored) != 0 {
		t.Fatalf("accept releasing the held move: %v %+v", ig, after)
	}
	if got := fmt.Sprint(st.Summary(t0)); got != before || st.HeldMove() == nil {
		t.Fatalf("Try changed the state:\n%s\n%s", before, got)
	}
	old := testkit.Sign(bob, nostr.NewAccept(m.ID, alice.PublicKey(), t0+5))
	if ig := st.Check(old, t0+5); ig == nil || ig.Token != IgnOutOfOrder {
		t.Fatalf("an event not after the last used one: %v", ig)
	}
}

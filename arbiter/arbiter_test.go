package arbiter

import (
	"math"
	"testing"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
)

const t0 = int64(1_750_000_000)

var (
	house = testkit.Key("house") // the daemon's key
	alice = testkit.Key("alice")
	bob   = testkit.Key("bob")
)

func state(t *testing.T, m *testkit.Match) *match.State {
	t.Helper()
	st, err := match.Fold(m.ID, m.Events, nil)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func kinds(in []Intent) []Kind {
	var out []Kind
	for _, i := range in {
		out = append(out, i.Kind)
	}
	return out
}

func only(t *testing.T, got []Intent, want Kind) Intent {
	t.Helper()
	if len(got) != 1 || got[0].Kind != want {
		t.Fatalf("got %v, want one %s", kinds(got), want)
	}
	return got[0]
}

// Section 3: a timeout claim is due strictly after clock_start + 86400.
func TestSection3ClaimTimeoutBoundary(t *testing.T) {
	m := testkit.NewMatch(house, alice, "gomoku", "", t0)
	m.Accept(t0 + 10)
	m.Move(house, 1, "h8", t0+20)
	st := state(t, m)
	deadline := st.ClockStart() + match.MoveClock
	cfg := DefaultConfig()
	if got := Decide([]*match.State{st}, house.PublicKey(), cfg, deadline); len(got) != 0 {
		t.Fatalf("at the deadline's last second: got %v, want nothing", kinds(got))
	}
	in := only(t, Decide([]*match.State{st}, house.PublicKey(), cfg, deadline+1), ClaimTimeout)
	if in.Result.Result != match.First || in.Result.Reason != "timeout" || in.Result.Plies != 1 {
		t.Fatalf("claim %+v", in.Result)
	}
	// The claim, stamped at deadline+1, is what the fold accepts as final.
	m.Result(house, in.Result, deadline+1)
	if st := state(t, m); !st.Final || st.FinalBy != match.FinalByTimeout {
		t.Fatalf("the claim did not make the result final: %+v", st.Summary(0))
	}
}

func TestSection3SignOwnResultOnly(t *testing.T) {
	m := testkit.NewMatch(house, alice, "gomoku", "", t0)
	m.Accept(t0 + 10)
	last := m.Play([]string{"h8", "a1", "i8", "a2", "j8", "a3", "k8", "a4", "l8"}, t0+20, 5)
	st := state(t, m)
	in := only(t, Decide([]*match.State{st}, house.PublicKey(), DefaultConfig(), last+1), SignResult)
	if !in.Result.Same(st.Computed()) {
		t.Fatalf("signs %+v, want %+v", in.Result, st.Computed())
	}
	m.Result(house, in.Result, last+2)
	if got := Decide([]*match.State{state(t, m)}, house.PublicKey(), DefaultConfig(), last+3); len(got) != 0 {
		t.Fatalf("after signing: %v", kinds(got))
	}
	// An agreement proposal from the opponent in a running game is not signed.
	m2 := testkit.NewMatch(house, alice, "gomoku", "", t0)
	m2.Accept(t0 + 10)
	m2.Play([]string{"h8", "a1"}, t0+20, 5)
	st2 := state(t, m2)
	m2.Result(alice, nostr.Result{Result: match.Draw, Reason: "agreement", Plies: 2, FinalHash: st2.FinalHash()}, t0+40)
	got := Decide([]*match.State{state(t, m2)}, house.PublicKey(), DefaultConfig(), t0+41)
	if in := only(t, got, PlayMove); in.Ply != 3 {
		t.Fatalf("move intent %+v", in)
	}
}

func TestSection3FallbackRuling(t *testing.T) {
	m := testkit.NewMatch(alice, bob, "gomoku", "", t0)
	m.Accept(t0 + 10)
	m.Move(alice, 1, "h8", t0+20)
	st := state(t, m)
	deadline := st.ClockStart() + match.MoveClock // bob's clock
	req := m.Request(alice, deadline+5)
	st = state(t, m)
	cfg := DefaultConfig()
	if got := Decide([]*match.State{st}, house.PublicKey(), cfg, int64(req.CreatedAt)+3599); len(got) != 0 {
		t.Fatalf("59:59 after the request: %v", kinds(got))
	}
	in := only(t, Decide([]*match.State{st}, house.PublicKey(), cfg, int64(req.CreatedAt)+3600), Rule)
	m.Ruling(house, in.Result, int64(req.CreatedAt)+3600)
	st = state(t, m)
	if !st.Final || st.FinalBy != match.FinalByRuling || st.Result != match.First {
		t.Fatalf("ruling not final: %+v", st.Summary(0))
	}
	if got := Decide([]*match.State{st}, house.PublicKey(), cfg, int64(req.CreatedAt)+7200); len(got) != 0 {
		t.Fatalf("after a correct ruling exists: %v", kinds(got))
	}
}

func TestSection3NoRulingWhileClockRuns(t *testing.T) {
	m := testkit.NewMatch(alice, bob, "gomoku", "", t0)
	m.Accept(t0 + 10)
	last := m.Play([]string{"h8", "h9"}, t0+20, 5)
	st := state(t, m)
	m.Result(alice, nostr.Result{Result: match.First, Reason: "x", Plies: 2, FinalHash: st.FinalHash()}, last+1)
	m.Result(bob, nostr.Result{Result: match.Second, Reason: "x", Plies: 2, FinalHash: st.FinalHash()}, last+2)
	m.Request(bob, last+3)
	st = state(t, m)
	if len(st.Requests) != 1 {
		t.Fatalf("the request should be valid: %v", st.Ignored)
	}
	if got := Decide([]*match.State{st}, house.PublicKey(), DefaultConfig(), last+3+7200); len(got) != 0 {
		t.Fatalf("no ruling can be correct yet: %v", kinds(got))
	}
	// Once the first player's clock (ply 3) has run out, one can.
	in := only(t, Decide([]*match.State{st}, house.PublicKey(), DefaultConfig(), last+match.MoveClock+1), Rule)
	if in.Result.Result != match.Second {
		t.Fatalf("ruling %+v", in.Result)
	}
}

func TestSection3AcceptPolicy(t *testing.T) {
	cfg := DefaultConfig()
	open := state(t, testkit.NewMatch(alice, nil0(), "chess", "", t0))
	invited := state(t, testkit.NewMatch(bob, nil0(), "gomoku", house.PublicKey(), t0))
	own := state(t, testkit.NewMatch(house, nil0(), "chess", "", t0))
	got := Decide([]*match.State{open, invited, own}, house.PublicKey(), cfg, t0+1799)
	if in := only(t, got, Accept); in.Match != invited.Match {
		t.Fatalf("at 29:59 only the invitation: %+v", in)
	}
	got = Decide([]*match.State{open, invited, own}, house.PublicKey(), cfg, t0+1800)
	if len(got) != 2 {
		t.Fatalf("at 30:00 both others: %v", kinds(got))
	}
	for _, in := range got {
		if in.Match == own.Match {
			t.Fatal("accepted its own challenge")
		}
	}
}

// A game the engine has no search for is declined, not played as chess.
func TestAcceptsOnlyGamesTheEnginePlays(t *testing.T) {
	st := state(t, testkit.NewMatch(bob, nil0(), "chess", house.PublicKey(), t0))
	other := *st
	other.Kind = "go"
	if got := Decide([]*match.State{&other}, house.PublicKey(), DefaultConfig(), t0+1); len(got) != 0 {
		t.Fatalf("accepted a game of %q: %v", other.Kind, kinds(got))
	}
	if got := Decide([]*match.State{st}, house.PublicKey(), DefaultConfig(), t0+1); len(got) != 1 {
		t.Fatalf("the same invitation in chess: %v, want one accept", kinds(got))
	}
}

func nil0() nostr.SecretKey { return nostr.SecretKey{} }

func TestSection3MaxGamesAndOneGamePerOpponent(t *testing.T) {
	cfg := DefaultConfig()
	var states []*match.State
	players := []string{"p1", "p2", "p3", "p4", "p5", "p6"}
	for i, p := range players {
		m := testkit.NewMatch(testkit.Key(p), house, "gomoku", "", t0+int64(i))
		states = append(states, state(t, m))
	}
	// A second challenge from p1 waits while p1 already has a game offered.
	dup := state(t, testkit.NewMatch(testkit.Key("p1"), house, "chess", "", t0+100))
	states = append(states, dup)
	got := Decide(states, house.PublicKey(), cfg, t0+4000)
	if len(got) != 5 {
		t.Fatalf("got %d accepts, want 5", len(got))
	}
	for _, in := range got {
		if in.Match == dup.Match || in.Match == states[5].Match {
			t.Fatalf("accepted %s beyond the limit or twice against one opponent", in.Match)
		}
	}
}

// Issue 13 item 9: challenges stamped beyond MaxSkew into the future are
// deferred, not accepted, so they hold no game slot; once now catches up
// they are accepted like any other, and the slots go to the real ones.
func TestFutureChallengesDeferred(t *testing.T) {
	now := t0 + 10_000
	cfg := DefaultConfig()
	cfg.MaxGames = 2
	var states []*match.State
	for i, ahead := range []int64{30 * 86400, 365 * 86400, cfg.MaxSkew + 1} {
		m := testkit.NewMatch(testkit.Key(string(rune('p'+i))), house, "chess", house.PublicKey(), now+ahead)
		states = append(states, state(t, m))
	}
	real := testkit.NewMatch(alice, house, "chess", house.PublicKey(), now-5)
	skewed := testkit.NewMatch(bob, house, "chess", house.PublicKey(), now+cfg.MaxSkew)
	states = append(states, state(t, real), state(t, skewed))
	got := Decide(states, house.PublicKey(), cfg, now)
	if len(got) != 2 || got[0].Match != real.ID || got[1].Match != skewed.ID {
		t.Fatalf("got %v for %v, want accepts of the present challenge and the one within the skew", kinds(got), got)
	}
	later := Decide(states[:1], house.PublicKey(), cfg, now+30*86400)
	if len(later) != 1 || later[0].Kind != Accept {
		t.Fatalf("once its time has come: got %v, want an accept", kinds(later))
	}
}

// Issue 30, item 11: the house's waits are compared as differences, so a
// wait set to the largest int64 (never) does not wrap its due time into
// the past, and neither does a challenge stamped at 2^53-1, the largest
// created_at the fold takes.
func TestDutiesNeverDueWithLargestWaits(t *testing.T) {
	m := testkit.NewMatch(alice, bob, "gomoku", "", t0)
	m.Accept(t0 + 10)
	m.Move(alice, 1, "h8", t0+20)
	req := m.Request(alice, t0+20+match.MoveClock+5)
	st := state(t, m)
	open := state(t, testkit.NewMatch(alice, nil0(), "chess", "", t0))
	late := state(t, testkit.NewMatch(bob, nil0(), "chess", "", nostr.MaxCreatedAt))
	cfg := DefaultConfig()
	cfg.RulingAfter, cfg.AcceptAfter, cfg.MaxSkew = math.MaxInt64, math.MaxInt64, math.MaxInt64
	if got := Decide([]*match.State{st, open, late}, house.PublicKey(), cfg, int64(req.CreatedAt)+7200); len(got) != 0 {
		t.Fatalf("waits set to the largest int64: got %v, want nothing", kinds(got))
	}
	cfg = DefaultConfig()
	cfg.MaxSkew = math.MaxInt64 // no skew check: the challenge stamped at 2^53-1 is open and waits
	got := Decide([]*match.State{late}, house.PublicKey(), cfg, nostr.MaxCreatedAt+cfg.AcceptAfter)
	if in := only(t, got, Accept); in.Match != late.Match {
		t.Fatalf("accept of the challenge at 2^53-1: %+v", in)
	}
}

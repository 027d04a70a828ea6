package arbiter

import (
	"testing"

	"vesper/internal/testkit"
	"vesper/match"
)

// TestHousePlanSaysWhy (issue 26, item 8): the house's verdict on each
// open challenge is Decide's, with the reason it will not accept one: a
// young challenge, its cap, one game per opponent, --no-play.
func TestHousePlanSaysWhy(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxGames = 2
	now := t0 + 10_000
	ch := func(who string, at int64) *match.State {
		return state(t, testkit.NewMatch(testkit.Key(who), house, "chess", "", at))
	}
	// The house plays p1 already; p1's open challenge, the oldest,
	// waits; p2's takes the second slot; p3's finds the cap reached; p4's
	// is too young.
	game := testkit.NewMatch(testkit.Key("p1"), house, "chess", "", t0)
	game.Accept(t0 + 1)
	states := []*match.State{state(t, game), ch("p1", t0+10), ch("p2", t0+20), ch("p3", t0+30), ch("p4", now-60)}
	want := map[string]Verdict{
		states[1].Match: {Why: WhyOpponent},
		states[2].Match: {Accept: true},
		states[3].Match: {Why: whyFull(2)},
		states[4].Match: {Why: WhyWait, Wait: now - 60 + cfg.AcceptAfter},
	}
	got := HousePlan(states, house.PublicKey(), cfg, now)
	if len(got) != len(want) {
		t.Fatalf("verdicts on %d challenges, want %d: %v", len(got), len(want), got)
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: %+v, want %+v", id[:8], got[id], w)
		}
	}
	accepted := Decide(states, house.PublicKey(), cfg, now)
	if len(accepted) != 1 || accepted[0].Match != states[2].Match {
		t.Errorf("Decide accepts %v; HousePlan says only %s", accepted, states[2].Match[:8])
	}
	cfg.Play = false
	for id, v := range HousePlan(states, house.PublicKey(), cfg, now) {
		if v.Accept || v.Why != WhyNoPlay || v.Wait != 0 {
			t.Errorf("--no-play: %s: %+v", id[:8], v)
		}
	}
}

// The house accepts an open challenge of every game the fold plays,
// Connect Four among them (issue 40), after AcceptAfter and not before,
// and its engine has a move there.
func TestHouseAcceptsEveryGame(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxGames = len(match.Games()) + 1
	now := t0 + 10*cfg.AcceptAfter
	kinds := map[string]bool{}
	for i, g := range match.Games() {
		kinds[g.Kind] = true
		p := testkit.Key("player-" + g.Kind)
		old := state(t, testkit.NewMatch(p, nil0(), g.Kind, "", now-cfg.AcceptAfter-int64(i)))
		young := state(t, testkit.NewMatch(p, nil0(), g.Kind, "", now-cfg.AcceptAfter+1))
		plan := HousePlan([]*match.State{old, young}, house.PublicKey(), cfg, now)
		if v := plan[old.Match]; !v.Accept {
			t.Errorf("%s after %d s: %+v, want accepted", g.Kind, cfg.AcceptAfter, v)
		}
		if v := plan[young.Match]; v.Accept || v.Why != WhyWait {
			t.Errorf("%s before %d s: %+v, want a wait", g.Kind, cfg.AcceptAfter, v)
		}
	}
	if !kinds["connect4"] {
		t.Error("match.Games has no connect4")
	}
}

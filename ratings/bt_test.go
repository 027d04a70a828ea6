package ratings

import (
	"math"
	"testing"
)

// The issue 37 case: alpha beats beta 5-0, gamma beats alpha 5-0, beta
// beats delta 10-0. A score ladder puts beta (10-5) above alpha (5-5);
// a fit that accounts for the opponents ranks gamma > alpha > beta > delta.
func TestBradleyTerryChain(t *testing.T) {
	const alpha, beta, gamma, delta = 0, 1, 2, 3
	games := []Pairing{{A: alpha, B: beta, N: 5, ScoreA: 5}, {A: gamma, B: alpha, N: 5, ScoreA: 5}, {A: beta, B: delta, N: 10, ScoreA: 10}}
	r := BradleyTerry(4, games)
	if !(r[gamma].Rating > r[alpha].Rating && r[alpha].Rating > r[beta].Rating && r[beta].Rating > r[delta].Rating) {
		t.Fatalf("order wrong: %+v", r)
	}
	for i, x := range r {
		if !(x.Low < x.Rating && x.Rating < x.High) || math.IsNaN(x.Rating) {
			t.Errorf("entity %d: interval %+v does not hold its rating", i, x)
		}
	}
	// At the maximum each entity's expected score (games and the prior's
	// virtual draws) equals its actual score: recomputed here from the
	// ratings alone, with the Elo formula.
	expect := func(ri, rj float64) float64 { return 1 / (1 + math.Pow(10, (rj-ri)/400)) }
	for i := range r {
		got, want := BTPriorGames*expect(r[i].Rating, BTAnchor), BTPriorGames*0.5
		for _, g := range games {
			switch i {
			case g.A:
				got += g.N * expect(r[g.A].Rating, r[g.B].Rating)
				want += g.ScoreA
			case g.B:
				got += g.N * expect(r[g.B].Rating, r[g.A].Rating)
				want += g.N - g.ScoreA
			}
		}
		if math.Abs(got-want) > 1e-6 {
			t.Errorf("entity %d: expected score %.9f, actual %.9f: not the maximum", i, got, want)
		}
	}
}

// Equal results give equal ratings around the anchor, and more games
// narrow the interval.
func TestBradleyTerrySymmetric(t *testing.T) {
	few := BradleyTerry(2, []Pairing{{A: 0, B: 1, N: 4, ScoreA: 2}})
	many := BradleyTerry(2, []Pairing{{A: 0, B: 1, N: 400, ScoreA: 200}, {A: 1, B: 1, N: 9, ScoreA: 9}})
	for _, r := range [][]BTRating{few, many} {
		if math.Abs(r[0].Rating-BTAnchor) > 1e-9 || math.Abs(r[1].Rating-BTAnchor) > 1e-9 {
			t.Errorf("equal results rated %+v, want both %d", r, BTAnchor)
		}
	}
	if many[0].High-many[0].Low >= few[0].High-few[0].Low {
		t.Errorf("400 games' interval %+v is not narrower than 4 games' %+v", many[0], few[0])
	}
	if r := BradleyTerry(1, nil); r[0].Rating != BTAnchor || r[0].Low >= BTAnchor {
		t.Errorf("an entity without games: %+v", r[0])
	}
}

// Above BTDenseMax entities the fit takes MM steps in memory linear in the
// games: it reaches the same ratings as the exact fit, and a thousand
// models claimed by a thousand keys still rate in order.
func TestBradleyTerryLarge(t *testing.T) {
	games := []Pairing{{A: 0, B: 1, N: 5, ScoreA: 5}, {A: 2, B: 0, N: 5, ScoreA: 5}, {A: 1, B: 3, N: 10, ScoreA: 10}, {A: 2, B: 3, N: 3, ScoreA: 1.5}}
	dense, large := btDense(4, games), btLarge(4, games)
	for i := range dense {
		if math.Abs(dense[i].Rating-large[i].Rating) > 1e-3 {
			t.Errorf("entity %d: exact %.4f, MM %.4f", i, dense[i].Rating, large[i].Rating)
		}
		if !(large[i].Low < large[i].Rating && large[i].Rating < large[i].High) {
			t.Errorf("entity %d: MM interval %+v", i, large[i])
		}
	}
	// A thousand models in pairs: each of the first 500 beats its partner
	// 3-0, and the winners meet the losers' partners' rivals nowhere.
	const n = 1000
	var pairs []Pairing
	for i := range n / 2 {
		pairs = append(pairs, Pairing{A: i, B: i + n/2, N: 3, ScoreA: 3})
	}
	r := BradleyTerry(n, pairs)
	for i := range n / 2 {
		if !(r[i].Rating > BTAnchor && r[i+n/2].Rating < BTAnchor && math.Abs(r[i].Rating-r[0].Rating) < 1e-6) {
			t.Fatalf("pair %d: winner %.2f, loser %.2f (first winner %.2f)", i, r[i].Rating, r[i+n/2].Rating, r[0].Rating)
		}
	}
}

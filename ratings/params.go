package ratings

import (
	"fmt"
	"math"
)

// Params are the constants of a rating pool.
type Params struct {
	// Rating, RD and Volatility are a new player's.
	Rating, RD, Volatility float64
	// Tau constrains how fast volatility changes (the paper suggests 0.3
	// to 1.2).
	Tau float64
	// MinRD and MaxRD bound a player's RD before and after every game;
	// use math.Inf(1) for no upper bound.
	MinRD, MaxRD float64
	// PeriodsPerDay is how many rating periods of RD growth a day without a
	// game is worth.
	PeriodsPerDay float64
	// MinRating is the floor a rating never goes below (math.Inf(-1) for
	// none), and MaxVolatility the ceiling of the volatility (math.Inf(1)
	// for none). Lichess caps both so that a pathological run of results
	// cannot leave a player where ratings no longer stabilize.
	MinRating, MaxVolatility float64
}

// LichessParams returns the constants Lichess uses for its Glicko-2
// ratings (lila's Glicko.scala): a new player at 1500 with RD 500 and
// volatility 0.09, tau 0.75, RD within [45, 500], 0.21436 rating periods per
// idle day (chosen so that a typical player's RD goes from 60 to 110 in a
// year), ratings floored at 400 and volatility capped at 0.1.
func LichessParams() Params {
	return Params{
		Rating:        1500,
		RD:            500,
		Volatility:    0.09,
		Tau:           0.75,
		MinRD:         45,
		MaxRD:         500,
		PeriodsPerDay: 0.21436,
		MinRating:     400,
		MaxVolatility: 0.1,
	}
}

// Validate reports the first constant that would make ratings meaningless
// (NaN, or never converging). Rate does not check: with invalid Params it
// still returns, but its numbers mean nothing.
func (p Params) Validate() error {
	bad := func(name string, v float64, want string) error {
		return fmt.Errorf("ratings: %s %v, want %s", name, v, want)
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case !finite(p.Rating):
		return bad("Rating", p.Rating, "a finite number")
	case !finite(p.Tau) || p.Tau <= 0:
		return bad("Tau", p.Tau, "a finite number > 0")
	case !finite(p.Volatility) || p.Volatility <= 0:
		return bad("Volatility", p.Volatility, "a finite number > 0")
	case math.IsNaN(p.MaxVolatility) || p.MaxVolatility < p.Volatility:
		return bad("MaxVolatility", p.MaxVolatility, fmt.Sprintf(">= Volatility %v", p.Volatility))
	case !finite(p.MinRD) || p.MinRD < 0:
		return bad("MinRD", p.MinRD, "a finite number >= 0")
	case !finite(p.RD) || p.RD <= 0 || p.RD < p.MinRD:
		return bad("RD", p.RD, fmt.Sprintf("a finite number > 0 and >= MinRD %v", p.MinRD))
	case math.IsNaN(p.MaxRD) || p.MaxRD < p.RD:
		return bad("MaxRD", p.MaxRD, fmt.Sprintf(">= RD %v", p.RD))
	case !finite(p.PeriodsPerDay) || p.PeriodsPerDay < 0:
		return bad("PeriodsPerDay", p.PeriodsPerDay, "a finite number >= 0")
	case math.IsNaN(p.MinRating) || math.IsInf(p.MinRating, 1):
		return bad("MinRating", p.MinRating, "a number or -Inf")
	}
	return nil
}

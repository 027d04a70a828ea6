package ratings

import (
	"fmt"
	"math"
)

// ProvisionalRD is the RD at and above which a rating is provisional, as on
// Lichess: the rating is shown with a "?" and is too uncertain to rank.
const ProvisionalRD = 110

// wilsonZ is the two-sided 95% normal quantile used for score intervals.
const wilsonZ = 1.959963984540054

// Player is one player's standing in a pool after all its games.
type Player struct {
	Pubkey string
	// Rating, RD and Volatility are as of the player's last game: RD has
	// not grown with the time since (RDAt gives that).
	Rating, RD, Volatility     float64
	Games, Wins, Draws, Losses int
	// Score is the mean score (a win 1, a draw 1/2), and ScoreLow and
	// ScoreHigh its 95% Wilson score interval.
	Score, ScoreLow, ScoreHigh float64
	// LastGame is the time (unix seconds) of the player's last game.
	LastGame int64
	// History holds one point per game, oldest first.
	History []Point
}

// Point is a player's rating right after one game.
type Point struct {
	At     int64  // unix seconds of the event that made the result final
	Match  string // match id
	Rating float64
	RD     float64
}

// Provisional reports whether the rating is still provisional (RD at or
// above ProvisionalRD).
func (p Player) Provisional() bool { return p.RD >= ProvisionalRD }

// Display renders the rating with its 95% interval, both rounded to whole
// points, the interval being twice the RD: "1520 ± 90". A provisional rating
// ends in "?": "1741 ± 793?".
func (p Player) Display() string {
	s := fmt.Sprintf("%d ± %d", int64(math.Round(p.Rating)), int64(math.Round(2*p.RD)))
	if p.Provisional() {
		s += "?"
	}
	return s
}

// RDAt is the player's RD at time now (unix seconds), grown with the days
// since their last game the way the next game would see it. It is what a
// page built at now should show next to the rating.
func (p Player) RDAt(now int64, params Params) float64 {
	return p.before(now, params).RD
}

// before is the player's rating as a game at time at sees it: the RD grown
// with the idle time since the player's last game, then bounded. A player
// without games has no idle time.
func (p Player) before(at int64, params Params) Glicko {
	g := Glicko{math.Max(p.Rating, params.MinRating), p.RD, p.Volatility}
	if p.Games > 0 && at > p.LastGame {
		days := float64(at-p.LastGame) / 86400
		phi := p.RD / scale
		g.RD = scale * math.Sqrt(phi*phi+days*params.PeriodsPerDay*p.Volatility*p.Volatility)
	}
	g.RD = clamp(g.RD, params.MinRD, params.MaxRD)
	return g
}

func clamp(v, lo, hi float64) float64 { return math.Min(math.Max(v, lo), hi) }

// Wilson is the 95% Wilson score interval for a mean score p over n games
// (the site shows it for the ladder of models and head-to-head series too).
// With no games it is the whole range.
func Wilson(p float64, n int) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	nf := float64(n)
	z2 := wilsonZ * wilsonZ
	den := 1 + z2/nf
	mid := (p + z2/(2*nf)) / den
	half := wilsonZ / den * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	return clamp(mid-half, 0, 1), clamp(mid+half, 0, 1)
}

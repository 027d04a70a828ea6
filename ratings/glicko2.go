package ratings

import "math"

const (
	// scale converts between the Glicko scale and the Glicko-2 scale
	// (400/ln 10, as the paper rounds it), and center is the Glicko rating
	// that maps to 0. Both belong to the system, not to a pool's start values.
	scale  = 173.7178
	center = 1500.0

	// epsilon is the paper's convergence tolerance for the volatility.
	epsilon = 0.000001
	// maxIterations bounds every loop of step 5 so that degenerate input
	// (a zero tau, infinite ratings) ends instead of spinning.
	maxIterations = 1000
)

// Glicko is one player's rating on the Glicko scale: the rating, its
// deviation RD and the volatility sigma.
type Glicko struct {
	Rating, RD, Volatility float64
}

// Opponent is one game of a rating period, seen from the rated player: the
// opponent's rating and RD before the period, and the player's score
// (1 a win, 0.5 a draw, 0 a loss).
type Opponent struct {
	Rating, RD float64
	Score      float64
}

// Update is one Glicko-2 rating period exactly as in Glickman's paper (steps
// 2 to 8, step 6 adding one period of volatility): it returns the player's
// rating after playing opponents, with tau the system constant. A player
// with no games only has their RD grow by one period.
//
// Rate does not call Update: it rates each game as its own period and leaves
// the growth of RD to the time between games (see the package doc).
func Update(player Glicko, opponents []Opponent, tau float64) Glicko {
	return update(player, opponents, tau, 1)
}

// update is Update with the number of rating periods step 6 adds.
func update(player Glicko, opponents []Opponent, tau, periods float64) Glicko {
	mu := (player.Rating - center) / scale
	phi := player.RD / scale
	sigma := player.Volatility

	var invV, sum float64 // 1/v and the sum of g(phi_j)(s_j - E) of step 4
	for _, o := range opponents {
		g := gOf(o.RD / scale)
		e := expected(mu, (o.Rating-center)/scale, g)
		invV += g * g * e * (1 - e)
		sum += g * (o.Score - e)
	}
	// With no games, or games so lopsided that E is exactly 0 or 1 in
	// floating point, the period carries no information: only step 6 applies.
	if invV == 0 || math.IsNaN(invV) || math.IsInf(invV, 0) {
		return Glicko{player.Rating, scale * math.Sqrt(phi*phi+periods*sigma*sigma), sigma}
	}
	v := 1 / invV
	sigma2 := volatility(phi, sigma, v, v*sum, tau)
	phiStar := math.Sqrt(phi*phi + periods*sigma2*sigma2)
	phi2 := 1 / math.Sqrt(1/(phiStar*phiStar)+invV)
	mu2 := mu + phi2*phi2*sum
	return Glicko{mu2*scale + center, phi2 * scale, sigma2}
}

// gOf is the paper's g(phi), which discounts a game against an opponent
// whose rating is uncertain.
func gOf(phi float64) float64 {
	return 1 / math.Sqrt(1+3*phi*phi/(math.Pi*math.Pi))
}

// expected is the paper's E(mu, mu_j, phi_j), with g(phi_j) already computed.
func expected(mu, muj, g float64) float64 {
	return 1 / (1 + math.Exp(-g*(mu-muj)))
}

// volatility is step 5: the new sigma, found with the Illinois algorithm
// as the paper gives it (its 2013 revision, which sets A to B when
// f(C)f(B) <= 0).
func volatility(phi, sigma, v, delta, tau float64) float64 {
	a := math.Log(sigma * sigma)
	phi2, d2 := phi*phi, delta*delta
	f := func(x float64) float64 {
		ex := math.Exp(x)
		den := phi2 + v + ex
		return ex*(d2-phi2-v-ex)/(2*den*den) - (x-a)/(tau*tau)
	}

	A := a
	var B float64
	if d2 > phi2+v {
		B = math.Log(d2 - phi2 - v)
	} else {
		k := 1.0
		for f(a-k*tau) < 0 && k < maxIterations {
			k++
		}
		B = a - k*tau
	}
	fA, fB := f(A), f(B)
	for i := 0; math.Abs(B-A) > epsilon && i < maxIterations; i++ {
		C := A + (A-B)*fA/(fB-fA)
		fC := f(C)
		if fC*fB <= 0 {
			A, fA = B, fB
		} else {
			fA /= 2
		}
		B, fB = C, fC
	}
	return math.Exp(A / 2)
}

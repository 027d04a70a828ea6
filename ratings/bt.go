package ratings

import (
	"math"
	"slices"
)

// Bradley-Terry over all games at once (the ladder of models, issue 37).
// Glicko follows a key game by game and so depends on the order of the
// games; a leaderboard of models asks instead which strengths explain all
// the results together, the question one Bradley-Terry fit answers: the
// expected score of i against j is 1/(1+10^((R_j-R_i)/400)), the Elo
// scale, and a draw counts half a win for each side.
//
// A perfect record (5-0) has no finite maximum-likelihood rating, so each
// entity also plays BTPriorGames virtual drawn games against a fixed
// anchor rated BTAnchor: a weak prior that keeps every rating finite, pulls
// an entity with few games towards the anchor, and fixes the scale's
// origin. The fit maximises this posterior by Newton's method (it is
// concave, so the maximum is unique), and the 95% interval of each rating
// is analytic: ±BTZ standard errors from the inverse of the posterior's
// curvature at the maximum (the Laplace approximation). Analytic rather
// than bootstrap because it is exact to recompute, gives the same bytes on
// every build, and costs one matrix inversion.

const (
	BTAnchor     = 1500 // the anchor's rating, the scale's origin
	BTPriorGames = 1    // virtual draws of each entity against the anchor
	BTZ          = 1.96 // the 95% interval's half-width in standard errors
)

// btScale turns natural-log odds into Elo points.
const btScale = 400 / math.Ln10

// Pairing is the games of entity A against entity B (A != B): N games of
// which A scored ScoreA points (a win 1, a draw ½).
type Pairing struct {
	A, B   int
	N      float64
	ScoreA float64
}

// BTRating is one entity's fitted rating and its 95% interval.
type BTRating struct {
	Rating, Low, High float64
}

// BradleyTerry fits n entities (0..n-1) to the pairings. Pairings of an
// entity with itself, or with no games, are ignored: they say nothing
// about relative strength.
func BradleyTerry(n int, games []Pairing) []BTRating {
	var ps []Pairing
	for _, g := range games {
		if g.A != g.B && g.N > 0 && g.A >= 0 && g.B >= 0 && g.A < n && g.B < n {
			ps = append(ps, g)
		}
	}
	if n > BTDenseMax {
		return btLarge(n, ps)
	}
	return btDense(n, ps)
}

// BTDenseMax bounds the entities the exact fit takes: it holds an n×n
// matrix, and profiles may name as many models as there are keys. Above
// it the fit takes minorization-maximization steps (Hunter 2004), memory
// linear in the games, and each interval comes from that entity's own
// curvature alone, the others held at their fit: narrower than the exact
// one, which also counts the opponents' uncertainty.
const BTDenseMax = 400

// btDense is the exact fit: Newton's method on the whole curvature.
func btDense(n int, ps []Pairing) []BTRating {
	theta := make([]float64, n) // natural-log strengths, anchor at 0
	logPost := func(th []float64) float64 {
		l := 0.0
		for i := range th {
			l += BTPriorGames * (0.5*logSig(th[i]) + 0.5*logSig(-th[i]))
		}
		for _, g := range ps {
			d := th[g.A] - th[g.B]
			l += g.ScoreA*logSig(d) + (g.N-g.ScoreA)*logSig(-d)
		}
		return l
	}
	h := make([][]float64, n)
	for i := range h {
		h[i] = make([]float64, n)
	}
	grad := make([]float64, n)
	curvature := func(th []float64) {
		for i := range n {
			clear(h[i])
			p := sig(th[i])
			grad[i] = BTPriorGames * (0.5 - p)
			h[i][i] = BTPriorGames * p * (1 - p)
		}
		for _, g := range ps {
			p := sig(th[g.A] - th[g.B])
			w := g.N * p * (1 - p)
			grad[g.A] += g.ScoreA - g.N*p
			grad[g.B] -= g.ScoreA - g.N*p
			h[g.A][g.A] += w
			h[g.B][g.B] += w
			h[g.A][g.B] -= w
			h[g.B][g.A] -= w
		}
	}
	// h is the negative Hessian, positive definite thanks to the prior.
	for range 200 {
		curvature(theta)
		step := solve(h, grad)
		if step == nil {
			break
		}
		before := logPost(theta)
		next := make([]float64, n)
		for t := 1.0; t > 1e-6; t /= 2 {
			for i := range next {
				next[i] = theta[i] + t*step[i]
			}
			if logPost(next) >= before {
				break
			}
		}
		moved := 0.0
		for i := range next {
			moved = math.Max(moved, math.Abs(next[i]-theta[i]))
		}
		theta = next
		if moved < 1e-10 {
			break
		}
	}
	curvature(theta)
	inv := invert(h)
	out := make([]BTRating, n)
	for i := range out {
		r := BTAnchor + btScale*theta[i]
		half := 0.0
		if inv != nil && inv[i][i] > 0 {
			half = BTZ * btScale * math.Sqrt(inv[i][i])
		}
		out[i] = BTRating{Rating: r, Low: r - half, High: r + half}
	}
	return out
}

// btLarge is the fit for many entities (see BTDenseMax).
func btLarge(n int, ps []Pairing) []BTRating {
	p := make([]float64, n) // strengths exp(theta), the anchor's is 1
	wins := make([]float64, n)
	for i := range p {
		p[i], wins[i] = 1, 0.5*BTPriorGames
	}
	for _, g := range ps {
		wins[g.A] += g.ScoreA
		wins[g.B] += g.N - g.ScoreA
	}
	den := make([]float64, n)
	for range 10000 {
		for i := range den {
			den[i] = BTPriorGames / (p[i] + 1)
		}
		for _, g := range ps {
			d := g.N / (p[g.A] + p[g.B])
			den[g.A] += d
			den[g.B] += d
		}
		moved := 0.0
		for i := range p {
			next := wins[i] / den[i]
			moved = math.Max(moved, math.Abs(math.Log(next/p[i])))
			p[i] = next
		}
		if moved < 1e-9 {
			break
		}
	}
	info := make([]float64, n)
	for i := range info {
		q := sig(math.Log(p[i]))
		info[i] = BTPriorGames * q * (1 - q)
	}
	for _, g := range ps {
		q := sig(math.Log(p[g.A]) - math.Log(p[g.B]))
		info[g.A] += g.N * q * (1 - q)
		info[g.B] += g.N * q * (1 - q)
	}
	out := make([]BTRating, n)
	for i := range out {
		r := BTAnchor + btScale*math.Log(p[i])
		half := BTZ * btScale / math.Sqrt(info[i])
		out[i] = BTRating{Rating: r, Low: r - half, High: r + half}
	}
	return out
}

func sig(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// logSig is log(sig(x)), computed without overflow.
func logSig(x float64) float64 {
	if x < 0 {
		return x - math.Log1p(math.Exp(x))
	}
	return -math.Log1p(math.Exp(-x))
}

// solve returns x with a·x = b by Gaussian elimination with partial
// pivoting, nil when a is singular. a and b are not changed.
func solve(a [][]float64, b []float64) []float64 {
	n := len(b)
	m := make([][]float64, n)
	for i := range m {
		m[i] = append(slices.Clone(a[i]), b[i])
	}
	if !eliminate(m, n) {
		return nil
	}
	x := make([]float64, n)
	for i := range x {
		x[i] = m[i][n]
	}
	return x
}

// invert returns a's inverse, nil when a is singular.
func invert(a [][]float64) [][]float64 {
	n := len(a)
	m := make([][]float64, n)
	for i := range m {
		m[i] = make([]float64, 2*n)
		copy(m[i], a[i])
		m[i][n+i] = 1
	}
	if !eliminate(m, n) {
		return nil
	}
	for i := range m {
		m[i] = m[i][n:]
	}
	return m
}

// eliminate reduces the n leftmost columns of m to the identity
// (Gauss-Jordan), reporting false when they are singular.
func eliminate(m [][]float64, n int) bool {
	for c := range n {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		if math.Abs(m[p][c]) < 1e-300 {
			return false
		}
		m[c], m[p] = m[p], m[c]
		pv := m[c][c]
		for k := range m[c] {
			m[c][k] /= pv
		}
		for r := range n {
			if r == c || m[r][c] == 0 {
				continue
			}
			f := m[r][c]
			for k := range m[r] {
				m[r][k] -= f * m[c][k]
			}
		}
	}
	return true
}

package batch

import (
	secp "github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// term is one k·P of a multi-scalar multiplication. P must be affine (Z = 1)
// and normalized; k is a magnitude in little-endian 64-bit words and neg
// says the term is really (-k)·P.
type term struct {
	p   *secp.JacobianPoint
	k   [4]uint64
	neg bool
}

// pending is one addition still to make: point pts[pt] into bucket b.
type pending struct{ pt, b int32 }

// Bucket states.
const (
	hasAffine = 1 << iota // buckets[b] holds an affine point (Z = 1)
	hasSpill              // spill[b] holds a Jacobian point to add to it
)

// msmScratch keeps the buffers of the multi-scalar multiplication between
// calls, so the bisection of a failed chunk does not allocate per check.
type msmScratch struct {
	pts         []secp.JacobianPoint // the terms' points, then their negations, Z = 1
	queue, next []pending
	sched       []pending
	den, prefix []secp.FieldVal
	buckets     []secp.JacobianPoint // affine, Z = 1
	spill       []secp.JacobianPoint
	state       []uint8
	round       []int32
}

// Relative costs of the operations, in units of about 0.1 µs on the
// target machine: an affine bucket addition with a shared inversion
// (5 multiplications and a squaring), dcrd's mixed Jacobian+affine
// addition, its general addition and its doubling. Only the ratios
// matter, to pick the window width.
const (
	costAffineAdd = 5
	costMixedAdd  = 10
	costAdd       = 19
	costDouble    = 6
	maxWindow     = 14
	// minAffine is the fewest additions worth one shared inversion
	// (a field inversion costs about 20 mixed additions); smaller rounds
	// are added in Jacobian coordinates instead.
	minAffine = 48
)

// pickWindow returns the Pippenger window width c minimising the estimated
// cost for n terms whose scalars have at most bits bits: each of the
// ceil((bits+1)/c) windows costs one bucket addition per term, a mixed and
// a general addition per bucket (2^(c-1) buckets with signed digits) to
// sum the buckets, and c doublings.
func pickWindow(n, bits int) int {
	best, bestCost := 2, -1
	for c := 2; c <= maxWindow; c++ {
		windows := (bits + c) / c
		cost := windows * (n*costAffineAdd + (1<<(c-1))*(costMixedAdd+costAdd) + c*costDouble)
		if bestCost < 0 || cost < bestCost {
			best, bestCost = c, cost
		}
	}
	return best
}

func bitLen(k *[4]uint64) int {
	for i := 3; i >= 0; i-- {
		if k[i] != 0 {
			n := 0
			for x := k[i]; x != 0; x >>= 1 {
				n++
			}
			return 64*i + n
		}
	}
	return 0
}

// windowBits returns the c bits of k starting at bit pos (bits past 256 are
// zero).
func windowBits(k *[4]uint64, pos, c int) int {
	limb, off := pos/64, pos%64
	if limb >= 4 {
		return 0
	}
	v := k[limb] >> uint(off)
	if off+c > 64 && limb+1 < 4 {
		v |= k[limb+1] << uint(64-off)
	}
	return int(v & (1<<uint(c) - 1))
}

func isInfinity(p *secp.JacobianPoint) bool {
	return (p.X.IsZero() && p.Y.IsZero()) || p.Z.IsZero()
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// msm sets result to Σ k_i·P_i with Pippenger's bucket method.
//
// Each scalar is written in base 2^c with signed digits in
// [-(2^(c-1)-1), 2^(c-1)] (half the buckets of unsigned digits, for one
// extra window bit; -P is P with y negated). Window w has buckets
// 1..2^(c-1); a term with digit d in window w goes into bucket |d| of w, as
// P or -P. Then each window's Σ_d d·bucket_d is formed with two running
// sums, and the windows are combined from the top with c doublings each.
//
// The bucket additions, nearly all the work, are made in affine
// coordinates: an affine sum needs one field inversion, and Montgomery's
// trick shares a single inversion among all the additions of a round, at
// 3 multiplications each. A round takes at most one addition per bucket,
// across all windows at once (they are independent), so rounds are large.
// Additions where the bucket and the point share x (doubling or P + -P)
// cannot use the affine formula and go to a Jacobian spill bucket instead.
func (s *msmScratch) msm(terms []term, result *secp.JacobianPoint) {
	*result = secp.JacobianPoint{}
	n := len(terms)
	bits := 0
	for i := range terms {
		if b := bitLen(&terms[i].k); b > bits {
			bits = b
		}
	}
	if n == 0 || bits == 0 {
		return
	}
	c := pickWindow(n, bits)
	windows := (bits + c) / c // ceil((bits+1)/c): the top digit never carries
	half := 1 << uint(c-1)
	nb := windows * half

	s.pts = grow(s.pts, 2*n)
	s.buckets = grow(s.buckets, nb)
	s.spill = grow(s.spill, nb)
	s.state = grow(s.state, nb)
	s.round = grow(s.round, nb)
	clear(s.state)
	clear(s.round)
	s.queue = s.queue[:0]
	s.queueDigits(terms, c, windows, half)
	s.fillBuckets()
	s.combineWindows(result, c, windows, half)
}

// queueDigits stores each term's point and its negation in s.pts and
// queues, for each nonzero signed digit, the addition of the one or the
// other into its window's bucket.
func (s *msmScratch) queueDigits(terms []term, c, windows, half int) {
	n := len(terms)
	for i := range terms {
		t := &terms[i]
		s.pts[i] = *t.p
		neg := &s.pts[n+i]
		neg.X.Set(&t.p.X)
		neg.Y.NegateVal(&t.p.Y, 1).Normalize()
		neg.Z.SetInt(1)
		carry := 0
		for w := 0; w < windows; w++ {
			d := windowBits(&t.k, w*c, c) + carry
			carry = 0
			if d > half {
				d -= 1 << uint(c)
				carry = 1
			}
			if t.neg {
				d = -d
			}
			switch {
			case d > 0:
				s.queue = append(s.queue, pending{pt: int32(i), b: int32(w*half + d - 1)})
			case d < 0:
				s.queue = append(s.queue, pending{pt: int32(n + i), b: int32(w*half - d - 1)})
			}
		}
	}
}

// fillBuckets makes the queued additions in rounds of at most one per
// bucket: the first point of a bucket is copied, a shared x goes to the
// spill bucket, and the rest are added in affine coordinates together
// (or, when too few to pay for the inversion, in Jacobian ones).
func (s *msmScratch) fillBuckets() {
	for round := int32(1); len(s.queue) > 0; round++ {
		s.sched = s.sched[:0]
		s.next = s.next[:0]
		for _, p := range s.queue {
			if s.round[p.b] == round {
				s.next = append(s.next, p)
				continue
			}
			s.round[p.b] = round
			pt, bk := &s.pts[p.pt], &s.buckets[p.b]
			switch {
			case s.state[p.b]&hasAffine == 0:
				*bk = *pt
				s.state[p.b] |= hasAffine
			case bk.X.Equals(&pt.X):
				s.addSpill(p.b, bk)
				s.addSpill(p.b, pt)
				s.state[p.b] &^= hasAffine
			default:
				s.sched = append(s.sched, p)
			}
		}
		if len(s.sched) < minAffine {
			for _, p := range s.sched {
				s.addSpill(p.b, &s.pts[p.pt])
			}
		} else {
			s.addAffine()
		}
		s.queue, s.next = s.next, s.queue
	}
}

// combineWindows sets result to Σ_w 2^(c·w) Σ_d d·bucket_(w,d): each
// window's sum with two running sums, the windows from the top with c
// doublings each.
func (s *msmScratch) combineWindows(result *secp.JacobianPoint, c, windows, half int) {
	var running, sum secp.JacobianPoint
	for w := windows - 1; w >= 0; w-- {
		if !isInfinity(result) {
			for j := 0; j < c; j++ {
				secp.DoubleNonConst(result, result)
			}
		}
		running = secp.JacobianPoint{}
		sum = secp.JacobianPoint{}
		for b := w*half + half - 1; b >= w*half; b-- {
			if s.state[b]&hasAffine != 0 {
				addTo(&running, &s.buckets[b])
			}
			if s.state[b]&hasSpill != 0 {
				addTo(&running, &s.spill[b])
			}
			if !isInfinity(&running) {
				addTo(&sum, &running)
			}
		}
		addTo(result, &sum)
	}
}

// addSpill adds p to the Jacobian spill bucket b.
func (s *msmScratch) addSpill(b int32, p *secp.JacobianPoint) {
	if s.state[b]&hasSpill == 0 {
		s.spill[b] = *p
		s.state[b] |= hasSpill
		return
	}
	secp.AddNonConst(&s.spill[b], p, &s.spill[b])
}

// addAffine makes the scheduled additions bucket += point in affine
// coordinates: λ = (y2 - y1)/(x2 - x1), x3 = λ² - x1 - x2,
// y3 = λ(x1 - x3) - y1, with all the 1/(x2 - x1) from one inversion
// (prefix products, invert the last, walk back).
func (s *msmScratch) addAffine() {
	m := len(s.sched)
	s.den = grow(s.den, m)
	s.prefix = grow(s.prefix, m)
	for k, p := range s.sched {
		bk, pt := &s.buckets[p.b], &s.pts[p.pt]
		s.den[k].NegateVal(&bk.X, 1).Add(&pt.X) // x2 - x1, magnitude 3, non-zero
		if k == 0 {
			s.prefix[0].Set(&s.den[0])
		} else {
			s.prefix[k].Mul2(&s.prefix[k-1], &s.den[k])
		}
	}
	var inv, dInv, lam, t, x3, y3 secp.FieldVal
	inv.Set(&s.prefix[m-1]).Inverse()
	for k := m - 1; k >= 0; k-- {
		if k > 0 {
			dInv.Mul2(&inv, &s.prefix[k-1]) // 1/den[k]
			inv.Mul(&s.den[k])              // 1/(den[0]...den[k-1])
		} else {
			dInv.Set(&inv)
		}
		p := s.sched[k]
		bk, pt := &s.buckets[p.b], &s.pts[p.pt]
		t.NegateVal(&bk.Y, 1).Add(&pt.Y) // y2 - y1, magnitude 3
		lam.Mul2(&t, &dInv)
		x3.SquareVal(&lam)
		t.Add2(&bk.X, &pt.X).Negate(2) // -(x1 + x2), magnitude 3
		x3.Add(&t).Normalize()
		t.NegateVal(&x3, 1).Add(&bk.X) // x1 - x3, magnitude 3
		y3.Mul2(&lam, &t)
		t.NegateVal(&bk.Y, 1)
		y3.Add(&t).Normalize()
		bk.X.Set(&x3)
		bk.Y.Set(&y3)
	}
}

// addTo adds p to acc; an empty acc just takes p, which keeps an affine
// point's Z = 1 and lets the next addition take dcrd's mixed path.
func addTo(acc, p *secp.JacobianPoint) {
	if isInfinity(acc) {
		acc.Set(p)
		return
	}
	secp.AddNonConst(acc, p, acc)
}

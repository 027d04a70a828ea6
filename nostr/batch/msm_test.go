package batch

import (
	"math/big"
	"math/rand/v2"
	"testing"

	secp "github.com/decred/dcrd/dcrec/secp256k1/v4"
)

func randScalar(rng *rand.Rand) secp.ModNScalar {
	var b [32]byte
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	var s secp.ModNScalar
	s.SetBytes(&b)
	return s
}

func affinePoint(k *secp.ModNScalar) secp.JacobianPoint {
	var p secp.JacobianPoint
	secp.ScalarBaseMultNonConst(k, &p)
	p.ToAffine()
	return p
}

func sameAffine(a, b *secp.JacobianPoint) bool {
	if isInfinity(a) || isInfinity(b) {
		return isInfinity(a) && isInfinity(b)
	}
	x, y := *a, *b
	x.ToAffine()
	y.ToAffine()
	return x.X.Equals(&y.X) && x.Y.Equals(&y.Y)
}

// naiveMSM is Σ k_i·P_i with dcrd's own scalar multiplication.
func naiveMSM(terms []term) secp.JacobianPoint {
	var acc secp.JacobianPoint
	for _, t := range terms {
		var b [32]byte
		for i, w := range t.k {
			for j := 0; j < 8; j++ {
				b[31-8*i-j] = byte(w >> (8 * j))
			}
		}
		var k secp.ModNScalar
		k.SetBytes(&b)
		if t.neg {
			k.Negate()
		}
		var r secp.JacobianPoint
		secp.ScalarMultNonConst(&k, t.p, &r)
		secp.AddNonConst(&acc, &r, &acc)
	}
	return acc
}

// TestMSM compares the bucket method with one scalar multiplication per
// term, on shapes that reach every path: tiny and large term counts,
// 128- and 256-bit scalars, zero scalars, negative terms, repeated points
// and a point with its negation (the doubling and cancelling additions
// that the affine formula cannot make).
func TestMSM(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	var base []secp.JacobianPoint
	for range 40 {
		k := randScalar(rng)
		base = append(base, affinePoint(&k))
	}
	negOf := func(p *secp.JacobianPoint) *secp.JacobianPoint {
		q := *p
		q.Y.Negate(1).Normalize()
		return &q
	}
	for _, tc := range []struct {
		name  string
		n     int
		bits  int
		dupes bool
	}{
		{"one", 1, 128, false}, {"two", 2, 256, false}, {"few", 7, 128, false},
		{"some", 60, 256, false}, {"many", 400, 130, false},
		{"repeated points", 300, 128, true}, {"repeated small scalars", 300, 6, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			terms := make([]term, tc.n)
			for i := range terms {
				p := &base[rng.IntN(len(base))]
				if !tc.dupes {
					k := randScalar(rng)
					q := affinePoint(&k)
					p = &q
				}
				if rng.IntN(5) == 0 {
					p = negOf(p)
				}
				var k [4]uint64
				for j := 0; j*64 < tc.bits; j++ {
					k[j] = rng.Uint64()
					if rem := tc.bits - 64*j; rem < 64 {
						k[j] &= 1<<uint(rem) - 1
					}
				}
				if rng.IntN(10) == 0 {
					k = [4]uint64{}
				}
				if bitLen(&k) == 256 && rng.IntN(2) == 0 {
					k[3] &= 1<<63 - 1 // keep most full-width scalars below n
				}
				terms[i] = term{p: p, k: k, neg: rng.IntN(3) == 0}
			}
			var s msmScratch
			var got secp.JacobianPoint
			s.msm(terms, &got)
			want := naiveMSM(terms)
			if !sameAffine(&got, &want) {
				t.Fatalf("msm differs from the naive sum")
			}
		})
	}
	t.Run("cancels to infinity", func(t *testing.T) {
		p := &base[0]
		k := [4]uint64{12345, 678}
		terms := []term{{p: p, k: k}, {p: negOf(p), k: k}, {p: p, k: k, neg: true}, {p: p, k: k}}
		var s msmScratch
		var got secp.JacobianPoint
		s.msm(terms, &got)
		if !isInfinity(&got) {
			t.Fatal("P - P - P + P is not the point at infinity")
		}
	})
}

// TestEndomorphismConstants checks the facts glv.go relies on.
func TestEndomorphismConstants(t *testing.T) {
	fieldPrime, _ := new(big.Int).SetString("fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f", 16)
	cube := func(x, m *big.Int) *big.Int { return new(big.Int).Exp(x, big.NewInt(3), m) }
	if cube(glvLambda, curveN).Cmp(big.NewInt(1)) != 0 {
		t.Error("lambda^3 != 1 mod n")
	}
	betaBytes := glvBeta.Bytes()
	beta := new(big.Int).SetBytes(betaBytes[:])
	if cube(beta, fieldPrime).Cmp(big.NewInt(1)) != 0 {
		t.Error("beta^3 != 1 mod p")
	}
	for i, v := range [][2]*big.Int{{glvA1, new(big.Int).Neg(glvB1Neg)}, {glvA2, glvB2}} {
		x := new(big.Int).Mul(v[1], glvLambda)
		x.Add(x, v[0]).Mod(x, curveN)
		if x.Sign() != 0 {
			t.Errorf("basis vector %d: a + b·lambda != 0 mod n", i+1)
		}
	}
	// lambda·G must be (beta·Gx, Gy): the pairing of lambda with beta.
	var one, lam secp.ModNScalar
	one.SetInt(1)
	lb := glvLambda.FillBytes(make([]byte, 32))
	lam.SetByteSlice(lb)
	g := affinePoint(&one)
	var lg secp.JacobianPoint
	secp.ScalarMultNonConst(&lam, &g, &lg)
	lg.ToAffine()
	var bx secp.FieldVal
	bx.Mul2(&g.X, &glvBeta).Normalize()
	if !lg.X.Equals(&bx) || !lg.Y.Equals(&g.Y) {
		t.Error("lambda·G != (beta·Gx, Gy)")
	}
}

// TestSplit: k1 + k2·lambda ≡ k (mod n) with both halves near 128 bits.
func TestSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	var sp splitter
	ks := []secp.ModNScalar{{}, {}}
	ks[1].SetInt(1)
	for range 2000 {
		ks = append(ks, randScalar(rng))
	}
	var nm1 secp.ModNScalar
	nm1.SetInt(1)
	nm1.Negate()
	ks = append(ks, nm1)
	for i, k := range ks {
		k1, neg1, k2, neg2 := sp.split(&k)
		if b1, b2 := bitLen(&k1), bitLen(&k2); b1 > 129 || b2 > 129 {
			t.Fatalf("case %d: halves of %d and %d bits", i, b1, b2)
		}
		signed := func(w [4]uint64, neg bool) *big.Int {
			v := new(big.Int)
			for j := 3; j >= 0; j-- {
				v.Lsh(v, 64).Or(v, new(big.Int).SetUint64(w[j]))
			}
			if neg {
				v.Neg(v)
			}
			return v
		}
		sum := new(big.Int).Mul(signed(k2, neg2), glvLambda)
		sum.Add(sum, signed(k1, neg1)).Mod(sum, curveN)
		kb := k.Bytes()
		if want := new(big.Int).SetBytes(kb[:]); sum.Cmp(want) != 0 {
			t.Fatalf("case %d: k1 + k2·lambda = %x, want %x", i, sum, want)
		}
	}
}

package batch

import (
	"encoding/binary"
	"encoding/hex"
	"math/big"

	secp "github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// secp256k1 has an efficiently computable endomorphism: for the cube root
// of unity lambda mod n and the matching cube root of unity beta mod p,
// lambda·(x, y) = (beta·x, y). Splitting a 256-bit scalar k into
// k1 + k2·lambda with |k1|, |k2| about 2^128 turns k·P into
// k1·P + k2·(lambda·P), two terms with half-length scalars, and lambda·P
// costs one field multiplication. The per-key scalars of the batch
// equation (Σ a_i·e_i, full 256 bits) are split this way so that every term
// of the multi-scalar multiplication has a ~128-bit scalar, like the a_i of
// the R terms; the Pippenger windows then stop at bit 129 instead of 256.
//
// The decomposition is the usual lattice one: (a1, b1) and (a2, b2) are
// short vectors with a + b·lambda ≡ 0 (mod n); rounding k's coordinates in
// that basis leaves a short remainder. The facts are checked by
// TestEndomorphismConstants.
var (
	curveN    = mustBig("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")
	halfN     = new(big.Int).Rsh(curveN, 1)
	glvLambda = mustBig("5363ad4cc05c30e0a5261c028812645a122e22ea20816678df02967c1b23bd72")
	glvA1     = mustBig("3086d221a7d46bcde86c90e49284eb15")
	glvB1Neg  = mustBig("e4437ed6010e88286f547fa90abfe4c3") // b1 = -glvB1Neg
	glvA2     = mustBig("114ca50f7a8e2f3f657c1108d9d44cfd8")
	glvB2     = mustBig("3086d221a7d46bcde86c90e49284eb15")
	glvBeta   = mustField("7ae96a2b657c07106e64479eac3434e99cf0497512f58995c1396c28719501ee")
)

func mustBig(s string) *big.Int {
	v, ok := new(big.Int).SetString(s, 16)
	if !ok {
		panic("batch: bad constant " + s) // only reachable by editing the constants above
	}
	return v
}

func mustField(s string) secp.FieldVal {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		panic("batch: bad constant " + s)
	}
	var f secp.FieldVal
	f.SetByteSlice(b)
	f.Normalize()
	return f
}

// splitter holds scratch big.Ints so that splitting allocates little.
type splitter struct {
	k, c1, c2, t, k1, k2 big.Int
	buf                  [32]byte
}

// split writes k ≡ k1 + k2·lambda (mod n) as magnitudes and signs. When the
// results do not fit 256 bits (they never do not, but the code must not
// trust that to stay panic-free) it returns k itself with k2 = 0.
func (s *splitter) split(k *secp.ModNScalar) (k1 [4]uint64, neg1 bool, k2 [4]uint64, neg2 bool) {
	k.PutBytes(&s.buf)
	s.k.SetBytes(s.buf[:])

	// c1 = round(b2·k / n), c2 = round(-b1·k / n); both numerators are
	// non-negative, so rounding is (x + n/2) / n.
	s.c1.Mul(glvB2, &s.k)
	s.c1.Add(&s.c1, halfN)
	s.c1.Quo(&s.c1, curveN)
	s.c2.Mul(glvB1Neg, &s.k)
	s.c2.Add(&s.c2, halfN)
	s.c2.Quo(&s.c2, curveN)

	// k1 = k - c1·a1 - c2·a2
	s.k1.Set(&s.k)
	s.t.Mul(&s.c1, glvA1)
	s.k1.Sub(&s.k1, &s.t)
	s.t.Mul(&s.c2, glvA2)
	s.k1.Sub(&s.k1, &s.t)
	// k2 = -c1·b1 - c2·b2
	s.k2.Mul(&s.c1, glvB1Neg)
	s.t.Mul(&s.c2, glvB2)
	s.k2.Sub(&s.k2, &s.t)

	if s.k1.BitLen() > 256 || s.k2.BitLen() > 256 {
		return s.words(&s.k), false, [4]uint64{}, false
	}
	return s.words(&s.k1), s.k1.Sign() < 0, s.words(&s.k2), s.k2.Sign() < 0
}

// words returns |v| as little-endian 64-bit words; v must fit 256 bits.
func (s *splitter) words(v *big.Int) [4]uint64 {
	v.FillBytes(s.buf[:]) // FillBytes writes the absolute value
	return wordsBE(&s.buf)
}

// wordsBE reads a 32-byte big-endian number as little-endian 64-bit words.
func wordsBE(b *[32]byte) [4]uint64 {
	return [4]uint64{
		binary.BigEndian.Uint64(b[24:32]),
		binary.BigEndian.Uint64(b[16:24]),
		binary.BigEndian.Uint64(b[8:16]),
		binary.BigEndian.Uint64(b[0:8]),
	}
}

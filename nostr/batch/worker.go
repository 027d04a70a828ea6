package batch

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	mrand "math/rand/v2"

	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	secp "github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// worker holds one goroutine's scratch space.
type worker struct {
	keys    []key
	pol     policy
	cands   []cand
	slot    []int32 // key -> index into sums, -1 when unused
	touched []int32
	sums    []secp.ModNScalar
	terms   []term
	rnd     []byte
	msm     msmScratch
	split   splitter
}

func newWorker(keys []key, pol policy) *worker {
	w := &worker{keys: keys, pol: pol, slot: make([]int32, len(keys))}
	for i := range w.slot {
		w.slot[i] = -1
	}
	return w
}

// challengeTag is sha256("BIP0340/challenge"), the prefix (twice) of the
// tagged hash that gives e.
var challengeTag = sha256.Sum256([]byte("BIP0340/challenge"))

// chunk verifies one chunk of items into out.
func (w *worker) chunk(items []Item, keyOf []int32, out []bool) {
	w.prepare(items, keyOf)
	if len(w.cands) == 0 {
		return
	}
	w.coefficients()
	if len(w.cands) <= min(w.pol.leaf, smallBatch) {
		w.individual(w.cands, items, out)
		return
	}
	if w.check(w.cands) {
		for i := range w.cands {
			out[w.cands[i].item] = true
		}
		return
	}
	w.search(items, out)
}

// prepare fills w.cands with the items that survive the checks needing no
// more than lifting R, and computes their s and e.
func (w *worker) prepare(items []Item, keyOf []int32) {
	w.cands = w.cands[:0]
	var buf [160]byte
	copy(buf[0:32], challengeTag[:])
	copy(buf[32:64], challengeTag[:])
	for i := range items {
		it := &items[i]
		k := keyOf[i]
		if !w.keys[k].ok {
			continue
		}
		var c cand
		// r ≥ p: btcec's ParseSignature fails. r not an x on the curve:
		// btcec's computed R has x = r, so it cannot succeed.
		if overflow := c.r.X.SetByteSlice(it.Sig[0:32]); overflow {
			continue
		}
		c.r.X.Normalize()
		if !secp.DecompressY(&c.r.X, false, &c.r.Y) {
			continue
		}
		c.r.Z.SetInt(1)
		// btcec reduces s mod n rather than rejecting s ≥ n; so do we.
		c.s.SetByteSlice(it.Sig[32:64])
		// r < p and the key's x < p, so their bytes are exactly the
		// bytes(r) and bytes(P) that BIP-340 hashes.
		copy(buf[64:96], it.Sig[0:32])
		copy(buf[96:128], it.Pubkey[:])
		copy(buf[128:160], it.Msg[:])
		h := sha256.Sum256(buf[:])
		c.e.SetBytes(&h)
		c.item = i
		c.key = k
		w.cands = append(w.cands, c)
	}
}

// search finds the bad items of a chunk whose equation failed.
func (w *worker) search(items []Item, out []bool) {
	cs := w.cands
	if !w.pol.sample || len(cs) < sampleMin {
		w.find(cs, true, items, out)
		return
	}
	// Move a random sample to the front. The positions need not be
	// secret (only the coefficients must be), so math/rand is enough.
	n := sampleGroups * sampleGroup
	for i := 0; i < n; i++ {
		j := i + mrand.IntN(len(cs)-i)
		cs[i], cs[j] = cs[j], cs[i]
	}
	var failed [sampleGroups]bool
	nFailed := 0
	for g := range failed {
		grp := cs[g*sampleGroup : (g+1)*sampleGroup]
		if w.check(grp) {
			for i := range grp {
				out[grp[i].item] = true
			}
		} else {
			failed[g] = true
			nFailed++
		}
	}
	for g, bad := range failed {
		if !bad {
			continue
		}
		grp := cs[g*sampleGroup : (g+1)*sampleGroup]
		if nFailed >= denseGroups {
			w.individual(grp, items, out)
		} else {
			w.find(grp, true, items, out)
		}
	}
	if nFailed >= denseGroups {
		w.individual(cs[n:], items, out)
	} else {
		w.find(cs[n:], false, items, out)
	}
}

// individual sets out for cs from btcec's own verdicts.
func (w *worker) individual(cs []cand, items []Item, out []bool) {
	for i := range cs {
		out[cs[i].item] = btcecVerify(&items[cs[i].item])
	}
}

// coefficients draws the random a_i: 128 bits each from crypto/rand, so
// whoever made the signatures cannot predict them; a_1 = 1 (see the
// package comment). A zero draw (chance 2^-128) would leave its item
// unchecked, so it becomes 1.
func (w *worker) coefficients() {
	n := len(w.cands)
	if cap(w.rnd) < 16*n {
		w.rnd = make([]byte, 16*n)
	}
	b := w.rnd[:16*n]
	_, _ = rand.Read(b) // never fails: crypto/rand aborts the program instead
	for i := range w.cands {
		c := &w.cands[i]
		hi := binary.BigEndian.Uint64(b[16*i:])
		lo := binary.BigEndian.Uint64(b[16*i+8:])
		if i == 0 || hi|lo == 0 {
			hi, lo = 0, 1
		}
		c.aw = [4]uint64{lo, hi, 0, 0}
		var be [32]byte
		binary.BigEndian.PutUint64(be[16:24], hi)
		binary.BigEndian.PutUint64(be[24:32], lo)
		c.a.SetBytes(&be) // < 2^128 < n: no reduction
	}
}

// find sets out for the candidates cs. knownBad says the batch equation
// over cs is already known to fail: the parent's sum is the sum of its
// halves' (same coefficients), so when the left half passes the right one
// must fail, and need not be checked again.
func (w *worker) find(cs []cand, knownBad bool, items []Item, out []bool) {
	if len(cs) == 0 {
		return
	}
	if len(cs) <= w.pol.leaf {
		w.individual(cs, items, out)
		return
	}
	if len(cs) == 1 && knownBad {
		// a·D ≠ 0 with a ≠ 0 mod n means D ≠ 0: invalid for certain.
		return
	}
	if !knownBad && w.check(cs) {
		for i := range cs {
			out[cs[i].item] = true
		}
		return
	}
	if len(cs) == 1 {
		return
	}
	h := len(cs) / 2
	if w.check(cs[:h]) {
		for i := range cs[:h] {
			out[cs[i].item] = true
		}
		w.find(cs[h:], true, items, out)
		return
	}
	w.find(cs[:h], true, items, out)
	w.find(cs[h:], false, items, out)
}

// btcecVerify is btcec's own verdict on one item.
func btcecVerify(it *Item) bool {
	pk, err := schnorr.ParsePubKey(it.Pubkey[:])
	if err != nil {
		return false
	}
	sig, err := schnorr.ParseSignature(it.Sig[:])
	if err != nil {
		return false
	}
	return sig.Verify(it.Msg[:], pk)
}

// check reports whether Σ a_i·R_i + Σ_P c_P·P - (Σ a_i·s_i)·G is the point
// at infinity, with c_P = Σ_{i by P} a_i·e_i.
func (w *worker) check(cs []cand) bool {
	var sumS, t secp.ModNScalar
	w.terms = w.terms[:0]
	w.sums = w.sums[:0]
	w.touched = w.touched[:0]
	for i := range cs {
		c := &cs[i]
		t.Mul2(&c.a, &c.s)
		sumS.Add(&t)
		j := w.slot[c.key]
		if j < 0 {
			j = int32(len(w.sums))
			w.slot[c.key] = j
			w.touched = append(w.touched, c.key)
			w.sums = append(w.sums, secp.ModNScalar{})
		}
		t.Mul2(&c.a, &c.e)
		w.sums[j].Add(&t)
		w.terms = append(w.terms, term{p: &c.r, k: c.aw})
	}
	for j, k := range w.touched {
		w.slot[k] = -1
		if w.sums[j].IsZero() {
			continue
		}
		k1, neg1, k2, neg2 := w.split.split(&w.sums[j])
		w.terms = append(w.terms,
			term{p: &w.keys[k].p, k: k1, neg: neg1},
			term{p: &w.keys[k].endo, k: k2, neg: neg2})
	}

	var lhs, rhs secp.JacobianPoint
	w.msm.msm(w.terms, &rhs)
	sumS.Negate()
	secp.ScalarBaseMultNonConst(&sumS, &lhs)
	secp.AddNonConst(&rhs, &lhs, &rhs)
	return isInfinity(&rhs)
}

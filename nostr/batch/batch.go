// Package batch verifies many BIP-340 Schnorr signatures at once, for the
// daemon's cold rebuild, where every stored event is re-checked.
//
// # The batch equation
//
// A signature (r, s) by key P on message m is valid when
//
//	s·G = R + e·P,  R = lift_x(r) (the curve point with x = r and even y),
//	e = tagged_hash("BIP0340/challenge", r || P || m) mod n.
//
// Checking n signatures one by one costs n full scalar multiplications e·P
// (most of btcec's time). Instead, with coefficients a_i, one checks the
// single equation
//
//	(Σ a_i·s_i)·G = Σ a_i·R_i + Σ_P (Σ_{i signed by P} a_i·e_i)·P,
//
// whose right side is one multi-scalar multiplication (Pippenger's bucket
// method, msm.go): a few point additions per term instead of a full scalar
// multiplication per signature. Grouping the items by key leaves one term
// per distinct key (two, after the endomorphism split of glv.go), and Nostr
// events come from few keys. The left side is one multiplication of the
// base point. Items are cut into chunks of up to a few thousand, one
// equation each, spread over GOMAXPROCS goroutines.
//
// # Why the coefficients are random
//
// Write D_i = s_i·G - R_i - e_i·P_i: signature i is valid exactly when
// D_i = 0, and the equation says Σ a_i·D_i = 0. With every a_i = 1 a signer
// could publish two invalid signatures whose errors cancel (D_1 = -D_2;
// add 1 to one s and subtract 1 from another) and the batch would pass.
// The a_i are instead 128-bit numbers from crypto/rand, drawn after the
// signatures exist, so whoever made them cannot aim at the a_i. If some
// D_j ≠ 0 with j ≠ 1, then whatever the other coefficients are, at most
// one value of a_j mod n makes the sum vanish (the group has prime order n,
// so a_j·D_j takes every value once as a_j runs over 0..n-1), and a random
// 128-bit a_j hits it with probability at most 2^-128. A zero draw would
// leave its item unchecked, so it is replaced by 1.
//
// # Why a_1 = 1 is safe
//
// The argument needs one random coefficient on one non-zero D_j, not
// randomness everywhere. If the first item is the only invalid one, the
// sum is 1·D_1 ≠ 0 and the equation fails with certainty; if any other
// item is invalid, its a_j is random and the bound above holds. So fixing
// a_1 = 1, as BIP-340's own description of batch verification does,
// costs no security (and spares one random draw and one coefficient).
//
// # Exactly btcec's answers
//
// Items that btcec rejects before its curve arithmetic (public key x ≥ p
// or not on the curve, r ≥ p) are rejected here the same way, and so is an
// r that is not the x of a curve point: btcec's computed R has x = r, so
// it cannot succeed for such an r. s is reduced mod n, as btcec's
// ParseSignature does (it does not reject s ≥ n as BIP-340 says; such an s
// is simply wrong unless s - n would be right). For the remaining items,
// D_i = 0 is exactly btcec's test (R is never the point at infinity and has
// even y by construction), so an equation over valid items always holds,
// and an item is only reported valid when an equation containing it holds,
// which for an invalid item happens with probability at most 2^-128.
//
// When a chunk's equation fails, the bad items are found by bisection
// (halves whose equations hold are valid; a failing group of one is
// invalid), and small groups are checked by btcec itself. A random sample
// is checked first: if bad items turn out dense, the chunk goes to btcec
// one by one, which is then cheaper than halving.
package batch

import (
	"runtime"
	"sync"
	"sync/atomic"

	secp "github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// Item is one signature to check: the x-only public key, the 32-byte
// message (a Nostr event id) and the 64-byte signature, as raw bytes.
type Item struct {
	Pubkey [32]byte
	Msg    [32]byte
	Sig    [64]byte
}

const (
	// maxChunk bounds the items of one batch equation. Pippenger's cost
	// per term falls slowly with size, while larger chunks also repeat each
	// key's terms less often; past a few thousand the gain is small and a
	// failed chunk's bisection gets longer.
	maxChunk = 4096
	// minChunk is the smallest chunk made only to use another core.
	minChunk = 128
	// leafSize: groups this small in the bisection of a failed chunk are
	// checked one by one with btcec. Such a group is known to hold a bad
	// item, and with so few terms the bucket method's fixed costs dominate
	// (an equation costs ~70 µs per item over 16 items, ~15 over 1,000),
	// so halving further would save little.
	leafSize = 16
	// smallBatch: a chunk of this few candidates goes to btcec: an equation
	// over one item costs a little more than btcec's check (~285 µs against
	// ~250), while from two items on the equation is cheaper (~175 µs per
	// item at two, ~100 at eight).
	smallBatch = 1
	// A failed chunk is first sampled: sampleGroups groups of sampleGroup
	// candidates drawn at random are checked. If denseGroups or more of
	// them fail, bad items are dense (about 3% or more), where halving
	// finds failing groups at every level and costs more than btcec one
	// by one (which then checks the rest of the chunk). Otherwise the
	// rest is bisected. Sparse bad items, the expected case, cost the
	// sample little: each sample group is checked once.
	sampleGroup  = 32
	sampleGroups = 8
	denseGroups  = 5
	sampleMin    = 3 * sampleGroups * sampleGroup / 2 // smaller chunks are just bisected
)

// policy says how a failed chunk is searched. Tests use the zero policy
// to drive the batch equation down to single items.
type policy struct {
	leaf   int  // groups of at most leaf items go to btcec
	sample bool // sample a failed chunk to detect dense bad items
}

var production = policy{leaf: leafSize, sample: true}

// Verify reports for each item whether its BIP-340 signature is valid. The
// answer for every item is what github.com/btcsuite/btcd/btcec/v2/schnorr
// (ParsePubKey + ParseSignature + Verify) answers for it, valid or not,
// whatever the bytes (up to the 2^-128 chance of the batch equation
// accepting an invalid item, see the package comment).
func Verify(items []Item) []bool {
	return verify(items, production)
}

// verify is Verify with the failed-chunk policy as a parameter.
func verify(items []Item, pol policy) []bool {
	out := make([]bool, len(items))
	if len(items) == 0 {
		return out
	}
	procs := runtime.GOMAXPROCS(0)

	keys, keyOf := liftKeys(items, procs)

	chunks := (len(items) + maxChunk - 1) / maxChunk
	if chunks < procs {
		chunks = min(procs, max(1, len(items)/minChunk))
	}
	size := (len(items) + chunks - 1) / chunks
	chunks = (len(items) + size - 1) / size

	run := func(w *worker, c int) {
		lo := c * size
		hi := min(lo+size, len(items))
		w.chunk(items[lo:hi], keyOf[lo:hi], out[lo:hi])
	}
	workers := min(procs, chunks)
	if workers <= 1 {
		w := newWorker(keys, pol)
		for c := 0; c < chunks; c++ {
			run(w, c)
		}
		return out
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newWorker(keys, pol)
			for {
				c := int(next.Add(1) - 1)
				if c >= chunks {
					return
				}
				run(w, c)
			}
		}()
	}
	wg.Wait()
	return out
}

// key is one distinct public key, lifted once per Verify call.
type key struct {
	bytes [32]byte
	ok    bool               // x < p and x is on the curve
	p     secp.JacobianPoint // lift_x(x): even y, Z = 1
	endo  secp.JacobianPoint // lambda·P = (beta·x, y), Z = 1
}

// liftKeys numbers the distinct public keys and lifts each once, in
// parallel when there are many (each lift is a field square root).
func liftKeys(items []Item, procs int) ([]key, []int32) {
	index := make(map[[32]byte]int32)
	keyOf := make([]int32, len(items))
	var keys []key
	for i := range items {
		k, seen := index[items[i].Pubkey]
		if !seen {
			k = int32(len(keys))
			index[items[i].Pubkey] = k
			keys = append(keys, key{bytes: items[i].Pubkey})
		}
		keyOf[i] = k
	}
	lift := func(ks []key) {
		for i := range ks {
			ks[i].lift()
		}
	}
	if procs <= 1 || len(keys) < 64 {
		lift(keys)
		return keys, keyOf
	}
	var wg sync.WaitGroup
	per := (len(keys) + procs - 1) / procs
	for lo := 0; lo < len(keys); lo += per {
		part := keys[lo:min(lo+per, len(keys))]
		wg.Add(1)
		go func() {
			defer wg.Done()
			lift(part)
		}()
	}
	wg.Wait()
	return keys, keyOf
}

// lift decodes the key as schnorr.ParsePubKey does: x must be below p and
// x^3 + 7 must be a square; the even square root is the key's y.
func (k *key) lift() {
	var x, y secp.FieldVal
	if overflow := x.SetByteSlice(k.bytes[:]); overflow {
		return
	}
	x.Normalize()
	if !secp.DecompressY(&x, false, &y) {
		return
	}
	k.ok = true
	k.p.X.Set(&x)
	k.p.Y.Set(&y)
	k.p.Z.SetInt(1)
	k.endo.X.Mul2(&x, &glvBeta).Normalize()
	k.endo.Y.Set(&y)
	k.endo.Z.SetInt(1)
}

// cand is an item that passed the checks that need no curve arithmetic
// beyond lifting R, with everything its batch terms need.
type cand struct {
	item int // index within the chunk
	key  int32
	r    secp.JacobianPoint // lift_x(r), Z = 1
	s, e secp.ModNScalar
	a    secp.ModNScalar // random coefficient
	aw   [4]uint64       // a as words, for the msm digits
}

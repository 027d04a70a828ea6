package batch

import (
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	secp "github.com/decred/dcrd/dcrec/secp256k1/v4"

	"vesper/internal/testkit"
)

// reference is the oracle every answer is compared with: btcec's schnorr
// package exactly as the brief names it (ParsePubKey + ParseSignature +
// Verify), written out here rather than shared with the code under test.
func reference(it Item) bool {
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

// signer is a test key.
type signer struct {
	priv *btcec.PrivateKey
	pub  [32]byte
}

func newSigners(rng *rand.Rand, n int) []signer {
	out := make([]signer, n)
	for i := range out {
		var b [32]byte
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		b[0] &= 0x7f // below n, and not zero thanks to b[31] below
		b[31] |= 1
		priv, pub := btcec.PrivKeyFromBytes(b[:])
		out[i].priv = priv
		copy(out[i].pub[:], schnorr.SerializePubKey(pub))
	}
	return out
}

func (s signer) sign(t testing.TB, msg [32]byte) Item {
	t.Helper()
	sig, err := schnorr.Sign(s.priv, msg[:])
	if err != nil {
		t.Fatal(err)
	}
	it := Item{Pubkey: s.pub, Msg: msg}
	copy(it.Sig[:], sig.Serialize())
	return it
}

func randMsg(rng *rand.Rand) [32]byte {
	var m [32]byte
	for i := range m {
		m[i] = byte(rng.Uint32())
	}
	return m
}

// validItems signs n random messages with keys picked at random.
func validItems(t testing.TB, rng *rand.Rand, keys []signer, n int) []Item {
	t.Helper()
	out := make([]Item, n)
	for i := range out {
		out[i] = keys[rng.IntN(len(keys))].sign(t, randMsg(rng))
	}
	return out
}

func mustHex32(s string) [32]byte {
	var b [32]byte
	if _, err := hex.Decode(b[:], []byte(s)); err != nil || len(s) != 64 {
		panic("bad hex " + s)
	}
	return b
}

var (
	fieldP = mustHex32("fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f")
	orderN = mustHex32("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")
)

// addSmall returns b + v as a 256-bit big-endian number (wrapping).
func addSmall(b [32]byte, v uint64) [32]byte {
	for i := 31; i >= 0 && v != 0; i-- {
		s := uint64(b[i]) + v&0xff
		b[i] = byte(s)
		v = v>>8 + s>>8
	}
	return b
}

// notOnCurve returns an x below p that is not the x of any curve point.
func notOnCurve(rng *rand.Rand) [32]byte {
	for {
		x := randMsg(rng)
		var f, y secp.FieldVal
		if f.SetByteSlice(x[:]) {
			continue
		}
		if !secp.DecompressY(&f, false, &y) {
			return x
		}
	}
}

// corruption is one way to spoil an item; most make it invalid, a few
// (such as s ≥ n in btcec's reading) only make that likely, which is why
// every answer is compared with btcec rather than with false.
type corruption struct {
	name string
	do   func(it *Item, rng *rand.Rand, other [32]byte)
}

var corruptions = []corruption{
	{"flip r bit", func(it *Item, rng *rand.Rand, _ [32]byte) { flip(it.Sig[0:32], rng) }},
	{"flip s bit", func(it *Item, rng *rand.Rand, _ [32]byte) { flip(it.Sig[32:64], rng) }},
	{"flip msg bit", func(it *Item, rng *rand.Rand, _ [32]byte) { flip(it.Msg[:], rng) }},
	{"flip pubkey bit", func(it *Item, rng *rand.Rand, _ [32]byte) { flip(it.Pubkey[:], rng) }},
	{"wrong key", func(it *Item, _ *rand.Rand, other [32]byte) { it.Pubkey = other }},
	{"s = n", func(it *Item, _ *rand.Rand, _ [32]byte) { copy(it.Sig[32:], orderN[:]) }},
	{"s = n+small", func(it *Item, rng *rand.Rand, _ [32]byte) {
		v := addSmall(orderN, 1+rng.Uint64N(1<<40))
		copy(it.Sig[32:], v[:])
	}},
	{"s = 2^256-1", func(it *Item, _ *rand.Rand, _ [32]byte) {
		for i := 32; i < 64; i++ {
			it.Sig[i] = 0xff
		}
	}},
	{"s = n - s", func(it *Item, _ *rand.Rand, _ [32]byte) {
		var s secp.ModNScalar
		s.SetByteSlice(it.Sig[32:])
		s.Negate()
		b := s.Bytes()
		copy(it.Sig[32:], b[:])
	}},
	{"s = 0", func(it *Item, _ *rand.Rand, _ [32]byte) { clear(it.Sig[32:]) }},
	{"r = p", func(it *Item, _ *rand.Rand, _ [32]byte) { copy(it.Sig[:32], fieldP[:]) }},
	{"r = p+small", func(it *Item, rng *rand.Rand, _ [32]byte) {
		v := addSmall(fieldP, 1+rng.Uint64N(900))
		copy(it.Sig[:32], v[:])
	}},
	{"r = 2^256-1", func(it *Item, _ *rand.Rand, _ [32]byte) {
		for i := 0; i < 32; i++ {
			it.Sig[i] = 0xff
		}
	}},
	{"r off curve", func(it *Item, rng *rand.Rand, _ [32]byte) {
		x := notOnCurve(rng)
		copy(it.Sig[:32], x[:])
	}},
	{"r = 0", func(it *Item, _ *rand.Rand, _ [32]byte) { clear(it.Sig[:32]) }},
	{"r of another point", func(it *Item, _ *rand.Rand, other [32]byte) { copy(it.Sig[:32], other[:]) }},
	{"pubkey off curve", func(it *Item, rng *rand.Rand, _ [32]byte) { it.Pubkey = notOnCurve(rng) }},
	{"pubkey = p", func(it *Item, _ *rand.Rand, _ [32]byte) { it.Pubkey = fieldP }},
	{"pubkey = p+small", func(it *Item, rng *rand.Rand, _ [32]byte) {
		it.Pubkey = addSmall(fieldP, 1+rng.Uint64N(900))
	}},
	{"pubkey = 0", func(it *Item, _ *rand.Rand, _ [32]byte) { it.Pubkey = [32]byte{} }},
	{"msg = 0", func(it *Item, _ *rand.Rand, _ [32]byte) { it.Msg = [32]byte{} }},
	{"swap r and s", func(it *Item, _ *rand.Rand, _ [32]byte) {
		var r [32]byte
		copy(r[:], it.Sig[:32])
		copy(it.Sig[:32], it.Sig[32:])
		copy(it.Sig[32:], r[:])
	}},
	{"all zero", func(it *Item, _ *rand.Rand, _ [32]byte) { *it = Item{} }},
	{"random bytes", func(it *Item, rng *rand.Rand, _ [32]byte) {
		for _, b := range [][]byte{it.Pubkey[:], it.Msg[:], it.Sig[:]} {
			for i := range b {
				b[i] = byte(rng.Uint32())
			}
		}
	}},
}

func flip(b []byte, rng *rand.Rand) {
	i := rng.IntN(8 * len(b))
	b[i/8] ^= 1 << (i % 8)
}

// mixed returns n items from keys, with about badShare of them corrupted
// at random positions in every way of corruptions.
func mixed(t testing.TB, rng *rand.Rand, keys []signer, n int, badShare float64) []Item {
	items := validItems(t, rng, keys, n)
	for i := range items {
		if rng.Float64() >= badShare {
			continue
		}
		c := corruptions[rng.IntN(len(corruptions))]
		c.do(&items[i], rng, keys[rng.IntN(len(keys))].pub)
	}
	return items
}

// pure is the policy without btcec: a failed chunk is bisected down to
// single-item equations, whatever it costs.
var pure = policy{}

func compare(t *testing.T, items []Item, got []bool) {
	t.Helper()
	if len(got) != len(items) {
		t.Fatalf("got %d answers for %d items", len(got), len(items))
	}
	for i := range items {
		if want := reference(items[i]); got[i] != want {
			t.Errorf("item %d: got %v, want %v (pubkey %x msg %x sig %x)",
				i, got[i], want, items[i].Pubkey, items[i].Msg, items[i].Sig)
		}
	}
}

// TestDifferential compares every answer with btcec on batches of all
// sizes the brief names, with every kind of corruption at random places.
func TestDifferential(t *testing.T) {
	testkit.QuickLoopSkips(t)
	rng := rand.New(rand.NewPCG(1, 2))
	keys := newSigners(rng, 7)
	for _, n := range []int{0, 1, 2, 3, 100, 1000} {
		for _, bad := range []float64{0, 0.005, 0.1, 0.5, 1} {
			items := mixed(t, rng, keys, n, bad)
			t.Run(fmt.Sprintf("n=%d/bad=%v", n, bad), func(t *testing.T) {
				compare(t, items, Verify(items))
			})
		}
	}
}

// TestEveryCorruption puts each corruption alone into an otherwise valid
// batch, through the pure batch path (no btcec fallback: the bisection
// goes down to single-item equations) and through Verify.
func TestEveryCorruption(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	keys := newSigners(rng, 4)
	for _, c := range corruptions {
		t.Run(c.name, func(t *testing.T) {
			for _, n := range []int{1, 2, 3, 17} {
				items := validItems(t, rng, keys, n)
				bad := rng.IntN(n)
				c.do(&items[bad], rng, keys[(bad+1)%len(keys)].pub)
				compare(t, items, verify(items, pure))
				compare(t, items, Verify(items))
			}
		})
	}
}

// TestPureBatchPath drives the batch equation alone over small mixed
// batches, where Verify itself would hand the items to btcec.
func TestPureBatchPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	keys := newSigners(rng, 3)
	for _, n := range []int{1, 2, 3, 5, 8, 100} {
		for _, bad := range []float64{0, 0.2, 0.7, 1} {
			items := mixed(t, rng, keys, n, bad)
			t.Run(fmt.Sprintf("n=%d/bad=%v", n, bad), func(t *testing.T) {
				compare(t, items, verify(items, pure))
			})
		}
	}
}

// TestOneBad: in a batch where every signature is valid but one, exactly
// that one is reported.
func TestOneBad(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	keys := newSigners(rng, 50)
	items := validItems(t, rng, keys, 1000)
	for _, tc := range []struct {
		name string
		pos  int
	}{{"first", 0}, {"middle", 1 + rng.IntN(998)}, {"last", 999}} {
		t.Run(tc.name, func(t *testing.T) {
			its := append([]Item(nil), items...)
			its[tc.pos].Sig[40] ^= 0x10
			got := Verify(its)
			for i, ok := range got {
				if want := i != tc.pos; ok != want {
					t.Errorf("item %d: got %v, want %v", i, ok, want)
				}
			}
		})
	}
}

// TestCancellingPair: two invalid signatures whose errors cancel in the
// plain sum (s_1 + 1, s_2 - 1 by the same key on the same message) pass
// an unweighted batch check; the random coefficients must catch both.
func TestCancellingPair(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	keys := newSigners(rng, 2)
	for _, n := range []int{2, 10, 300} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			items := validItems(t, rng, keys, n)
			i, j := 0, n-1
			items[j] = keys[0].sign(t, items[i].Msg)
			items[i] = keys[0].sign(t, items[i].Msg)
			var s secp.ModNScalar
			var one secp.ModNScalar
			one.SetInt(1)
			s.SetByteSlice(items[i].Sig[32:])
			s.Add(&one)
			b := s.Bytes()
			copy(items[i].Sig[32:], b[:])
			s.SetByteSlice(items[j].Sig[32:])
			one.Negate()
			s.Add(&one)
			b = s.Bytes()
			copy(items[j].Sig[32:], b[:])
			// With every coefficient 1 the errors cancel and the
			// equation holds: this is what the random a_i are for.
			keys, keyOf := liftKeys(items, 1)
			w := newWorker(keys, pure)
			w.prepare(items, keyOf)
			for k := range w.cands {
				w.cands[k].a.SetInt(1)
				w.cands[k].aw = [4]uint64{1}
			}
			if !w.check(w.cands) {
				t.Fatal("the unweighted equation rejects the pair; the test shows nothing")
			}
			compare(t, items, Verify(items))
			compare(t, items, verify(items, pure))
		})
	}
}

// TestManyKeys: every item by its own key (the worst case for grouping),
// and repeated identical items.
func TestManyKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	keys := newSigners(rng, 300)
	items := make([]Item, 0, 320)
	for _, k := range keys {
		items = append(items, k.sign(t, randMsg(rng)))
	}
	items = append(items, items[:10]...)
	bad := items[5]
	bad.Sig[3] ^= 1
	items = append(items, bad, bad, bad)
	compare(t, items, Verify(items))
}

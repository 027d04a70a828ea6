package batch

import (
	"math/rand/v2"
	"testing"
)

// fuzzBase returns two valid items (two keys) that fuzz inputs are XORed
// onto, so that small inputs mean small corruptions of good signatures
// rather than random bytes that fail at the first check.
func fuzzBase(t testing.TB) []Item {
	rng := rand.New(rand.NewPCG(41, 42))
	keys := newSigners(rng, 2)
	var out []Item
	for i := range 2 {
		out = append(out, keys[i].sign(t, randMsg(rng)))
	}
	return out
}

// itemsFromBytes turns fuzz bytes into items: each 129-byte piece (a short
// last piece is zero-padded) is a selector byte and 128 bytes that are XORed
// onto base item selector%3, or taken raw when that is 2. At most three
// pieces are read, to keep each run fast. The valid base
// items are appended too, so the batch equation always has company.
func itemsFromBytes(base []Item, data []byte) []Item {
	var items []Item
	for len(data) > 0 && len(items) < 3 {
		var piece [129]byte
		n := copy(piece[:], data)
		data = data[n:]
		var it Item
		if sel := int(piece[0]) % (len(base) + 1); sel < len(base) {
			it = base[sel]
		}
		raw := piece[1:]
		for i := range it.Pubkey {
			it.Pubkey[i] ^= raw[i]
		}
		for i := range it.Msg {
			it.Msg[i] ^= raw[32+i]
		}
		for i := range it.Sig {
			it.Sig[i] ^= raw[64+i]
		}
		items = append(items, it)
	}
	return append(items, base...)
}

// FuzzVerify: bytes → a few items; every answer, through Verify and the
// pure batch path, must be btcec's.
func FuzzVerify(f *testing.F) {
	f.Add([]byte{0})
	f.Add([]byte{2})
	f.Add(append([]byte{1}, make([]byte, 200)...))
	flipS := make([]byte, 129)
	flipS[0], flipS[1+64+40] = 2, 0x08
	f.Add(flipS)
	for _, v := range vectorSeeds(f) {
		f.Add(v)
	}
	base := fuzzBase(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		items := itemsFromBytes(base, data)
		for _, pol := range []policy{production, pure} {
			got := verify(items, pol)
			for i := range items {
				if want := reference(items[i]); got[i] != want {
					t.Fatalf("%+v, item %d: got %v, want %v (%x)", pol, i, got[i], want, items[i])
				}
			}
		}
	})
}

// vectorSeeds are the BIP-340 vectors as raw pieces (selector 2).
func vectorSeeds(t testing.TB) [][]byte {
	vs, _ := loadVectors(t)
	var out [][]byte
	for _, v := range vs {
		b := []byte{2}
		b = append(b, v.item.Pubkey[:]...)
		b = append(b, v.item.Msg[:]...)
		b = append(b, v.item.Sig[:]...)
		out = append(out, b)
	}
	return out
}

package batch

import (
	"encoding/csv"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
)

type vector struct {
	index, comment string
	item           Item
	valid          bool
}

// loadVectors reads the official BIP-340 test vectors. Those whose message
// is not 32 bytes (15-18, added in 2022) cannot be an Item: a Nostr
// signature is always over a 32-byte event id.
func loadVectors(t testing.TB) (vs []vector, skipped []string) {
	t.Helper()
	f, err := os.Open("testdata/bip340-vectors.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows[1:] {
		index, secret, pub, msg, sig, result, comment := row[0], row[1], row[2], row[4], row[5], row[6], row[7]
		if len(msg) != 64 {
			skipped = append(skipped, index)
			continue
		}
		var v vector
		v.index, v.comment, v.valid = index, comment, result == "TRUE"
		for _, f := range []struct {
			dst []byte
			hex string
		}{{v.item.Pubkey[:], pub}, {v.item.Msg[:], msg}, {v.item.Sig[:], sig}} {
			if n, err := hex.Decode(f.dst, []byte(f.hex)); err != nil || n != len(f.dst) {
				t.Fatalf("vector %s: bad hex %q", index, f.hex)
			}
		}
		if secret != "" {
			// The data itself: the secret key gives the listed public key.
			sk, _ := hex.DecodeString(secret)
			_, pk := btcec.PrivKeyFromBytes(sk)
			if got := hex.EncodeToString(schnorr.SerializePubKey(pk)); got != hex.EncodeToString(v.item.Pubkey[:]) {
				t.Fatalf("vector %s: secret key gives public key %s", index, got)
			}
		}
		vs = append(vs, v)
	}
	return vs, skipped
}

// TestBIP340Vectors: each official vector alone, through Verify and the
// pure batch path, then all of them in one batch, then each buried among
// valid signatures, where an invalid vector must be found by bisection.
func TestBIP340Vectors(t *testing.T) {
	vs, skipped := loadVectors(t)
	if len(vs) != 15 {
		t.Fatalf("read %d usable vectors, want 15", len(vs))
	}
	t.Logf("skipped vectors %v: messages are not 32 bytes", skipped)
	all := make([]Item, len(vs))
	for i, v := range vs {
		all[i] = v.item
		t.Run(v.index, func(t *testing.T) {
			if ref := reference(v.item); ref != v.valid {
				t.Fatalf("btcec says %v, the vector says %v (%s)", ref, v.valid, v.comment)
			}
			for _, pol := range []policy{production, pure} {
				if got := verify([]Item{v.item}, pol)[0]; got != v.valid {
					t.Errorf("%+v: got %v, want %v (%s)", pol, got, v.valid, v.comment)
				}
			}
		})
	}
	t.Run("together", func(t *testing.T) {
		for _, pol := range []policy{production, pure} {
			for i, got := range verify(all, pol) {
				if got != vs[i].valid {
					t.Errorf("%+v, vector %s: got %v, want %v", pol, vs[i].index, got, vs[i].valid)
				}
			}
		}
	})
	t.Run("among valid", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(31, 32))
		keys := newSigners(rng, 5)
		items := validItems(t, rng, keys, 200)
		pos := rng.Perm(len(items))[:len(vs)]
		for i, p := range pos {
			items[p] = vs[i].item
		}
		got := Verify(items)
		for i, p := range pos {
			if got[p] != vs[i].valid {
				t.Errorf("vector %s at %d: got %v, want %v", vs[i].index, p, got[p], vs[i].valid)
			}
		}
		compare(t, items, got)
	})
}

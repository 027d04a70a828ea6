package relayd

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/testkit"
	"vesper/nostr"
)

// These tests look at the relay as a client that is not ours would
// (issue 24): what its NIP-11 document promises, and whether it keeps to
// it.

// nip11Doc fetches the relay's NIP-11 document as raw JSON members, so a
// field that is left out can be told from one that is empty.
func nip11Doc(t *testing.T, r *Relay) map[string]json.RawMessage {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, "http"+strings.TrimPrefix(r.URL(), "ws"), nil)
	req.Header.Set("Accept", "application/nostr+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc map[string]json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestNIP11AsOthersRead (NIP-11): software is a URL; no empty pubkey (an
// empty string is no key); unset created_at limits are left out (0 would
// read as "now only"); supported_nips lists 40, which the relay honours
// (TestNIP40), and 42 only when it asks for AUTH.
func TestNIP11AsOthersRead(t *testing.T) {
	for _, tt := range []struct {
		name     string
		opts     Options
		nips     []int
		not      []int
		lower    bool
		upper    bool
		required bool
	}{
		{"default", Options{}, []int{1, 11, 40, 77}, []int{42, 86}, false, false, false},
		{"auth", Options{RequireAuth: true}, []int{1, 11, 40, 42, 77}, []int{86}, false, false, true},
		{"lower limit", Options{CreatedAtLowerLimit: 3600}, []int{40}, []int{42}, true, false, false},
		{"upper limit", Options{CreatedAtUpperLimit: 60}, []int{40}, []int{42}, false, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc := nip11Doc(t, startRelay(t, tt.opts))
			var software string
			json.Unmarshal(doc["software"], &software)
			if u, err := url.Parse(software); err != nil || u.Scheme != "https" || u.Host == "" {
				t.Errorf("software %q is not a URL", software)
			}
			for _, k := range []string{"pubkey", "contact", "icon", "banner", "description"} {
				if v, ok := doc[k]; ok && string(v) == `""` {
					t.Errorf("%s is present and empty", k)
				}
			}
			if pk, ok := doc["pubkey"]; ok {
				t.Errorf("pubkey %s, but the relay has no operator key", pk)
			}
			var nips []int
			if err := json.Unmarshal(doc["supported_nips"], &nips); err != nil {
				t.Fatalf("supported_nips %s: %v", doc["supported_nips"], err)
			}
			for _, n := range tt.nips {
				if !slices.Contains(nips, n) {
					t.Errorf("supported_nips %v lacks %d", nips, n)
				}
			}
			for _, n := range tt.not {
				if slices.Contains(nips, n) {
					t.Errorf("supported_nips %v lists %d", nips, n)
				}
			}
			var lim map[string]json.RawMessage
			if err := json.Unmarshal(doc["limitation"], &lim); err != nil {
				t.Fatalf("limitation %s: %v", doc["limitation"], err)
			}
			if _, ok := lim["created_at_lower_limit"]; ok != tt.lower {
				t.Errorf("created_at_lower_limit present %v, want %v (%s)", ok, tt.lower, doc["limitation"])
			}
			if _, ok := lim["created_at_upper_limit"]; ok != tt.upper {
				t.Errorf("created_at_upper_limit present %v, want %v (%s)", ok, tt.upper, doc["limitation"])
			}
			if string(lim["auth_required"]) != strconv.FormatBool(tt.required) {
				t.Errorf("auth_required %s, want %v", lim["auth_required"], tt.required)
			}
		})
	}
}

// signRaw signs ev as it stands, pubkey included, where key.Sign would set
// a lowercase pubkey: the way to make a correctly signed event with an
// upper-case one.
func signRaw(t *testing.T, key nostr.SecretKey, ev *gn.Event) {
	t.Helper()
	skb, err := hex.DecodeString(key.Hex())
	if err != nil {
		t.Fatal(err)
	}
	priv, _ := btcec.PrivKeyFromBytes(skb)
	ev.ID = ev.GetID()
	id, _ := hex.DecodeString(ev.ID)
	sig, err := schnorr.Sign(priv, id)
	if err != nil {
		t.Fatal(err)
	}
	ev.Sig = hex.EncodeToString(sig.Serialize())
}

// TestMalformedRefused (PROTOCOL.md section 1): an event whose id hashes
// and whose signature verifies is still refused "invalid:" when section 1
// calls it malformed, and is not stored, so no client is served it.
func TestMalformedRefused(t *testing.T) {
	key := nostr.GenerateKey()
	upperPubkey := &gn.Event{PubKey: strings.ToUpper(key.PublicKey()), CreatedAt: 1_700_000_000, Kind: nostr.KindMove, Content: "e2e4"}
	signRaw(t, key, upperPubkey)
	upperSig := signed(t, key, nostr.KindMove, 1_700_000_001, "d2d4")
	upperSig.Sig = strings.ToUpper(upperSig.Sig)
	negative := signed(t, key, nostr.KindMove, -1, "c2c4")
	pastSafe := signed(t, key, nostr.KindMove, nostr.MaxCreatedAt+1, "b2b4") // issue 30, item 11
	for _, ev := range []*gn.Event{upperPubkey, upperSig, negative, pastSafe} {
		if !ev.CheckID() {
			t.Fatal("test data: id does not hash")
		}
		if ok, _ := ev.CheckSignature(); !ok {
			t.Fatal("test data: signature does not verify")
		}
	}
	for name, db := range stores(t) {
		t.Run(name, func(t *testing.T) {
			r := startRelay(t, Options{DBPath: db})
			rc := dial(t, r.URL())
			for _, tt := range []struct {
				name  string
				ev    *gn.Event
				field string
			}{{"upper-case pubkey", upperPubkey, "pubkey"}, {"upper-case sig", upperSig, "sig"}, {"negative created_at", negative, "created_at"},
				{"created_at past 2^53-1", pastSafe, "created_at"}} {
				ok, reason := rc.publish(tt.ev)
				if ok || !strings.HasPrefix(reason, "invalid:") || !strings.Contains(reason, tt.field) {
					t.Errorf("%s: got %v %q, want OK false \"invalid: ...%s...\"", tt.name, ok, reason, tt.field)
				}
				if r.Has(tt.ev.ID) {
					t.Errorf("%s: stored", tt.name)
				}
			}
			rc.mustPublish(signed(t, key, nostr.KindMove, 0, "a well-formed event at 0"))
			rc.mustPublish(signed(t, key, nostr.KindMove, nostr.MaxCreatedAt, "and one at 2^53-1"))
		})
	}
}

// TestNIP40: the relay lists NIP-40, so it refuses an event whose
// expiration has passed and does not serve one that expired after it was
// stored, to REQ or NIP-77; an expiration still ahead is served.
func TestNIP40(t *testing.T) {
	key := nostr.GenerateKey()
	now := time.Now().Unix()
	exp := func(at int64) gn.Tag { return gn.Tag{"expiration", strconv.FormatInt(at, 10)} }
	for name, db := range stores(t) {
		t.Run(name, func(t *testing.T) {
			r := startRelay(t, Options{DBPath: db})
			rc := dial(t, r.URL())
			past := signed(t, key, nostr.KindMove, now-100, "past", exp(now-10))
			if ok, reason := rc.publish(past); ok || !strings.HasPrefix(reason, "invalid:") {
				t.Errorf("expired event: got %v %q, want OK false \"invalid: ...\"", ok, reason)
			}
			if r.Has(past.ID) {
				t.Error("expired event stored")
			}
			ahead := signed(t, key, nostr.KindMove, now-100, "ahead", exp(now+3600))
			plain := signed(t, key, nostr.KindMove, now-99, "plain")
			rc.mustPublish(ahead)
			rc.mustPublish(plain)
			// One that expired while stored: Inject stores it as if it had
			// come in before its expiration.
			lapsed := signed(t, key, nostr.KindMove, now-98, "lapsed", exp(now-1))
			if err := r.Inject(t.Context(), lapsed); err != nil {
				t.Fatal(err)
			}
			want := []string{ahead.ID, plain.ID}
			slices.Sort(want)
			var got []string
			for _, ev := range rc.mustQuery(gn.Filter{Kinds: []int{nostr.KindMove}}) {
				got = append(got, ev.ID)
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("REQ served %v, want %v (not the lapsed %s)", got, want, lapsed.ID)
			}
			neg := negIDs(t, r.URL(), gn.Filter{Kinds: []int{nostr.KindMove}})
			slices.Sort(neg)
			if !slices.Equal(neg, want) {
				t.Errorf("NIP-77 listed %v, want %v", neg, want)
			}
		})
	}
}

// TestAuthChallengeOnConnect (NIP-42): a relay that requires AUTH sends its
// challenge first, before the client asks for anything; one that does not
// sends none.
func TestAuthChallengeOnConnect(t *testing.T) {
	t.Run("required", func(t *testing.T) {
		rc := dial(t, startRelay(t, Options{RequireAuth: true}).URL())
		ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(10*time.Second))
		defer cancel()
		_, b, err := rc.c.Read(ctx)
		if err != nil {
			t.Fatalf("nothing from the relay: %v", err)
		}
		var msg []string
		if json.Unmarshal(b, &msg) != nil || len(msg) != 2 || msg[0] != "AUTH" || msg[1] == "" {
			t.Fatalf("first message %s, want [\"AUTH\", <challenge>]", b)
		}
	})
	t.Run("not required", func(t *testing.T) {
		rc := dial(t, startRelay(t, Options{}).URL())
		rc.mustQuery(gn.Filter{Kinds: []int{nostr.KindMove}})
		if rc.challenge != "" {
			t.Fatalf("challenge %q from a relay that requires no AUTH", rc.challenge)
		}
	})
}

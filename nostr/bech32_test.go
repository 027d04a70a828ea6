package nostr_test

import (
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr/nip19"

	"vesper/internal/testkit"
	"vesper/nostr"
)

// mixCase upper-cases the second half of s: one string in both cases.
func mixCase(s string) string { return s[:len(s)/2] + strings.ToUpper(s[len(s)/2:]) }

// TestBech32Case (issue 24, item 5): NIP-19 strings are read in lower case
// and in all upper case (BIP-173 allows both; QR codes carry upper case,
// and nostr-tools decodes it), giving the same value; a string in both
// cases is refused, as BIP-173 requires. Hex is not folded: an upper-case
// hex key or id is still malformed.
func TestBech32Case(t *testing.T) {
	k := testkit.Key("alice")
	ev := signed()
	note, err := nip19.EncodeNote(ev.ID)
	if err != nil {
		t.Fatal(err)
	}
	refs := []struct {
		name  string
		s     string
		want  string
		parse func(string) (string, error)
	}{
		{"npub", nostr.Npub(k.PublicKey()), k.PublicKey(), nostr.ParsePubkey},
		{"note", note, ev.ID, nostr.ParseEventRef},
		{"nevent", nostr.Nevent(ev.ID, ev.PubKey, []string{"wss://r.example"}), ev.ID, nostr.ParseEventRef},
		{"nsec", k.Nsec(), k.Hex(), func(s string) (string, error) {
			sk, err := nostr.ParseSecretKey(s)
			return sk.Hex(), err
		}},
	}
	for _, r := range refs {
		for _, form := range []struct {
			name string
			s    string
			ok   bool
		}{{"lower", r.s, true}, {"upper", strings.ToUpper(r.s), true}, {"mixed", mixCase(r.s), false}} {
			got, err := r.parse(form.s)
			if form.ok && (err != nil || got != r.want) {
				t.Errorf("%s, %s case: got %q, %v; want %q", r.name, form.name, got, err, r.want)
			}
			if !form.ok && err == nil {
				t.Errorf("%s, %s case: read as %q, want an error", r.name, form.name, got)
			}
		}
	}
	if got, err := nostr.ParsePubkey(strings.ToUpper(k.PublicKey())); err == nil {
		t.Errorf("upper-case hex pubkey read as %q", got)
	}
	if got, err := nostr.ParseEventRef(strings.ToUpper(ev.ID)); err == nil {
		t.Errorf("upper-case hex id read as %q", got)
	}
}

package seat

import (
	"slices"
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr/nip19"

	"vesper/nostr"
)

// TestRefsInUpperCase (issue 24, item 5): an nevent or nprofile in all
// upper case, as a QR code carries it, names the same match or player and
// keeps its relay hints; one in mixed case is refused.
func TestRefsInUpperCase(t *testing.T) {
	id, pk := strings.Repeat("ab", 32), nostr.GenerateKey().PublicKey()
	hints := []string{"wss://relay.example"}
	ne := nostr.Nevent(id, pk, hints)
	np, err := nip19.EncodeProfile(pk, hints)
	if err != nil {
		t.Fatal(err)
	}
	gotID, gotHints, err := matchRef(strings.ToUpper(ne))
	if err != nil || gotID != id || !slices.Equal(gotHints, hints) {
		t.Errorf("NEVENT1...: got %q %v %v, want %q %v", gotID, gotHints, err, id, hints)
	}
	gotPK, gotHints, err := pubkeyRef(strings.ToUpper(np))
	if err != nil || gotPK != pk || !slices.Equal(gotHints, hints) {
		t.Errorf("NPROFILE1...: got %q %v %v, want %q %v", gotPK, gotHints, err, pk, hints)
	}
	mixed := func(s string) string { return s[:len(s)/2] + strings.ToUpper(s[len(s)/2:]) }
	if _, _, err := matchRef(mixed(ne)); err == nil {
		t.Error("mixed-case nevent accepted")
	}
	if _, _, err := pubkeyRef(mixed(np)); err == nil {
		t.Error("mixed-case nprofile accepted")
	}
}

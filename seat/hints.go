package seat

import (
	"slices"
	"strings"

	gn "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"

	"vesper/nostr"
)

// NIP-19 relay hints: an nevent or nprofile names relays where the event
// or the person may be found. A reference's hints are added to the seat's
// relays for the lookup it names (the match's read, the invitee's relay
// list), a few at most, and each hint must be a relay URL.

// maxHints bounds the hints of one reference that are used.
const maxHints = 5

// matchRef reads a match reference (hex, note1 or nevent1) and the relay
// hints of an nevent.
// MatchID is the match id a reference names (64 hex, note1 or nevent1),
// for callers that key something by match.
func MatchID(ref string) (string, error) {
	id, _, err := matchRef(ref)
	return id, err
}

func matchRef(ref string) (id string, hints []string, err error) {
	id, err = nostr.ParseEventRef(ref)
	if err != nil {
		return "", nil, err
	}
	if s := nostr.FoldBech32(strings.TrimSpace(ref)); strings.HasPrefix(s, "nevent1") {
		if _, v, err := nip19.Decode(s); err == nil {
			if p, ok := v.(gn.EventPointer); ok {
				hints = cleanHints(p.Relays)
			}
		}
	}
	return id, hints, nil
}

// pubkeyRef reads a public key (hex, npub1 or nprofile1) and the relay
// hints of an nprofile.
func pubkeyRef(s string) (pubkey string, hints []string, err error) {
	s = nostr.FoldBech32(strings.TrimSpace(s))
	if strings.HasPrefix(s, "nprofile1") {
		prefix, v, err := nip19.Decode(s)
		p, ok := v.(gn.ProfilePointer)
		if err != nil || prefix != "nprofile" || !ok || !nostr.IsLowerHex(p.PublicKey, 64) {
			return "", nil, inputf("bad nprofile %q", short(s))
		}
		return p.PublicKey, cleanHints(p.Relays), nil
	}
	pk, err := nostr.ParsePubkey(s)
	return pk, nil, err
}

// cleanHints keeps the hints that are relay URLs, normalised, each once,
// at most maxHints.
func cleanHints(raw []string) []string {
	var out []string
	for _, h := range raw {
		u, err := nostr.NormalizeRelayURL(h)
		if err != nil || slices.Contains(out, u) {
			continue
		}
		if out = append(out, u); len(out) == maxHints {
			break
		}
	}
	return out
}

// withRelays is relays (as given) and then those of extra not among
// them (compared as the relay package keys them).
func withRelays(relays, extra []string) []string {
	out := slices.Clone(relays)
	seen := map[string]bool{}
	for _, r := range relays {
		seen[gn.NormalizeURL(r)] = true
	}
	for _, r := range extra {
		if u := gn.NormalizeURL(r); u != "" && !seen[u] {
			seen[u] = true
			out = append(out, r)
		}
	}
	return out
}

func short(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// neventHints are the relays an nevent names: a few of those that hold or
// took the event, in a stable order.
func neventHints(relays []string) []string {
	hs := slices.Clone(relays)
	slices.Sort(hs)
	if len(hs) > 3 {
		hs = hs[:3]
	}
	return hs
}

package site

import (
	"slices"

	"vesper/nostr"
)

// A match page names its challenge as an nevent (NIP-19): the id, the
// challenger as author and a few relays that delivered it, so that a
// client (or `vesper`, which takes an nevent wherever it takes a match
// id) knows where to fetch the events (issue 19).

// maxHints is how many relays an nevent names: enough to survive a relay
// or two going away, short enough to copy.
const maxHints = 3

// maxHintLen is the longest relay URL NIP-19's TLV can hold: one length
// byte. go-nostr would write a longer one's length modulo 256.
const maxHintLen = 255

// neventHints are the relay hints of a match's nevent (Input.Relays): the
// valid relay URLs, normalised, each once, public relays before local
// ones, each group sorted, at most maxHints. The same relays give the same
// hints in any order.
func neventHints(relays []string) []string {
	var public, local []string
	for _, r := range relays {
		u, err := nostr.NormalizeRelayURL(r)
		if err != nil || len(u) > maxHintLen {
			continue
		}
		if nostr.IsLocalRelay(u) {
			local = append(local, u)
		} else {
			public = append(public, u)
		}
	}
	slices.Sort(public)
	slices.Sort(local)
	hints := append(slices.Compact(public), slices.Compact(local)...)
	if len(hints) > maxHints {
		hints = hints[:maxHints]
	}
	return hints
}

// hints are the relay hints of a match's nevent in this build.
func (b *builder) hints(c *card) []string {
	return neventHints(b.in.Relays[c.ID])
}

// nevent is a match's challenge as nevent1...: its id, its author (the
// first player) and the hints.
func nevent(c *card, hints []string) string {
	return nostr.Nevent(c.ID, c.First, hints)
}

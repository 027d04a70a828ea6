package relay

import (
	"slices"

	"vesper/internal/netguard"
	"vesper/nostr/relay/internal/wire"
)

// Guard says which relays are dialed through internal/netguard's policy
// (issue 30, blind SSRF): those someone other than the operator named, a
// relay hint in a shared nevent or a player's relay list. The policy
// refuses, after name resolution and for every address tried, private,
// loopback, link-local, CGNAT, NAT64 and unspecified addresses, unless the
// operator allowed them. The zero Guard dials every relay as written: the
// caller names only the operator's own relays.
type Guard struct {
	// Strangers are the relays someone else named; only they are checked.
	Strangers []string
	// AllowPrivate is the operator's explicit --allow-private-relays.
	AllowPrivate bool
}

// policy is url's dial policy: nil (as written) unless a stranger named it.
func (g Guard) policy(url string) *netguard.Policy {
	if !slices.Contains(wire.NormalizeURLs(g.Strangers), wire.NormalizeURL(url)) {
		return nil
	}
	return &netguard.Policy{AllowPrivate: g.AllowPrivate}
}

package seat

import (
	gn "github.com/nbd-wtf/go-nostr"

	"vesper/nostr/relay"
)

// guard is the dial policy of a read, wait or publication on relays: each
// one that is not the seat's own (Relays, the operator's choice) was named
// by someone else, a shared nevent's hints or a tagged player's inbox
// relays, and is dialed through internal/netguard, which refuses private,
// loopback and link-local addresses unless the operator allowed them
// (issue 30, item 5: a hint could make `vesper status` and the MCP tools
// send requests to the agent's own machine).
func (s *Seat) guard(relays []string) relay.Guard {
	own := map[string]bool{}
	for _, u := range s.Relays {
		own[gn.NormalizeURL(u)] = true
	}
	var strangers []string
	for _, u := range relays {
		if !own[gn.NormalizeURL(u)] {
			strangers = append(strangers, u)
		}
	}
	return relay.Guard{Strangers: strangers, AllowPrivate: s.AllowPrivateRelays}
}

package seat

import (
	"context"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/nostr"
	"vesper/nostr/relay/follow"
)

// MaxInbox is how many of a tagged person's read relays an event that
// tags them is also sent to (NIP-65).
const MaxInbox = 3

// inbox finds where an event that tags pubkey should also go (NIP-65):
// the read relays of its latest relay list (kind 10002) on the seat's
// relays and the reference's hints, at most MaxInbox of them, or, when no
// list is found, the hints themselves. Relays the seat publishes to anyway
// are left out. A failed lookup is no error: the event still goes to the
// seat's own relays.
//
// A relay list is anyone's say: a relay on this machine or a private
// network that it names is used only when the seat itself has one
// (nostr.IsLocalRelay), so that a stranger's list cannot make an agent
// connect to services behind its firewall.
func (s *Seat) inbox(ctx context.Context, pubkey string, hints []string) []string {
	if pubkey == "" {
		return nil
	}
	var lists []*nostr.Event
	res, err := s.fetchFrom(ctx, withRelays(s.Relays, hints),
		[]gn.Filter{{Kinds: []int{nostr.KindRelayList}, Authors: []string{pubkey}, Limit: 1}}, "read relay list")
	if err == nil {
		for _, r := range res.events {
			lists = append(lists, r.Event)
		}
	}
	read := follow.InboxRelays(lists, pubkey, MaxInbox+len(s.Relays), s.AllowPrivateRelays)
	if len(lists) == 0 {
		read = hints
	}
	own := map[string]bool{}
	for _, u := range s.Relays {
		own[gn.NormalizeURL(u)] = true
	}
	var out []string
	for _, u := range read {
		if !own[u] && len(out) < MaxInbox {
			out = append(out, u)
		}
	}
	return out
}

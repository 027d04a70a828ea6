package seat

import (
	"context"
	"fmt"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/nostr"
)

// RelayList publishes the key's relay list (kind 10002, NIP-65): write
// names the relays its events are on (a daemon following the outbox model
// reads them there), read those where it reads what tags it (an accept of
// its challenge, an invitation). With both empty, every relay of the seat
// is both. The list replaces the key's earlier one; it is sent to the
// seat's relays and to every relay it names.
func (s *Seat) RelayList(ctx context.Context, read, write []string) (*Reply, error) {
	if err := s.needKey(); err != nil {
		return nil, err
	}
	if len(read) == 0 && len(write) == 0 {
		for _, u := range s.Relays {
			n := gn.NormalizeURL(u)
			if n == "" {
				return nil, inputf("relay list: not a relay URL: %q", u)
			}
			read, write = append(read, n), append(write, n)
		}
	}
	if len(read) == 0 && len(write) == 0 {
		return nil, inputf("relay list: no relays to list")
	}
	ev, err := nostr.NewRelayList(read, write, s.now().Unix())
	if err != nil {
		return nil, inputf("relay list: %v", err)
	}
	if err := s.Key.Sign(ev); err != nil {
		return nil, fmt.Errorf("seat: cannot sign: %w", err)
	}
	rl, err := nostr.ParseRelayList(ev)
	if err != nil {
		return nil, err
	}
	// The relays it names are the key's own: their write policy is taken
	// to admit it (publish marks them so).
	accepted, failed, err := s.publish(ctx, ev, append(append([]string(nil), rl.Write...), rl.Read...)...)
	if err != nil {
		return nil, err
	}
	return &Reply{OK: true, Action: "relay-list", Event: ev.ID, Kind: ev.Kind, Accepted: accepted, Failed: failed,
		Note: fmt.Sprintf("relay list published: write %v, read %v", rl.Write, rl.Read)}, nil
}

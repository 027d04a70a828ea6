package main

import (
	"context"

	"vesper/nostr"
	"vesper/nostr/relay"
	"vesper/store"
)

// ingest stores a batch of checked events (each once, remembering every
// relay that had it), keeps kind 0 profiles, re-folds each touched match,
// and returns the pubkeys of players it has not seen before.
func (n *node) ingest(ctx context.Context, batch []relay.Received) ([]string, error) {
	now := n.clock()
	var in []store.Incoming
	for _, r := range batch {
		if r.Event.Kind == nostr.KindProfile {
			if err := n.st.PutProfile(ctx, r.Event); err != nil {
				n.met.rejected("profile")
			}
			continue
		}
		n.met.received()
		if r.Event.Kind == nostr.KindChallenge || nostr.IsMatchKind(r.Event.Kind) {
			in = append(in, store.Incoming{Event: r.Event, Raw: r.Raw, Relay: r.Relay, SeenAt: now})
		} else {
			n.met.rejected("kind")
		}
	}
	if len(in) == 0 {
		return nil, nil
	}
	fresh, err := n.st.PutEvents(ctx, in)
	if err != nil {
		return nil, err
	}
	touched := map[string]bool{}
	for i, isNew := range fresh {
		if !isNew {
			continue
		}
		n.met.stored()
		for _, m := range store.MatchesOf(in[i].Event) {
			touched[m] = true
		}
	}
	var players []string
	for id := range touched {
		before := n.state(id)
		s, err := n.refold(ctx, id)
		if err != nil {
			return players, err
		}
		if s != nil && before == nil {
			players = append(players, s.First)
		}
		if s != nil && s.Accepted && (before == nil || !before.Accepted) {
			players = append(players, s.Second)
		}
	}
	return players, nil
}

package main

import (
	"context"
	"sort"

	"vesper/match"
	"vesper/nostr"
	"vesper/nostr/relay"
	"vesper/store"
)

// ingest stores a batch of checked events (each once, remembering every
// relay that had it), keeps kind 0 profiles, re-folds each touched match,
// and returns the pubkeys of players it has not seen before.
func (n *node) ingest(ctx context.Context, batch []relay.Received) ([]string, error) {
	now := n.clock()
	fresh, err := n.put(ctx, batch, now)
	if err != nil || len(fresh) == 0 {
		return nil, err
	}
	return n.fold(ctx, fresh, now)
}

// put stores a batch of checked events (each once, remembering every relay
// that had it) and kind 0 profiles, and returns the events that were new.
func (n *node) put(ctx context.Context, batch []relay.Received, now int64) ([]*nostr.Event, error) {
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
	stored, err := n.st.PutEvents(ctx, in)
	if err != nil {
		return nil, err
	}
	var fresh []*nostr.Event
	for i, isNew := range stored {
		if isNew {
			n.met.stored()
			fresh = append(fresh, in[i].Event)
		}
	}
	return fresh, nil
}

// fold brings the states of the matches of fresh up to date and returns
// the pubkeys of players it has not seen before. New events extend their
// match's state when they sort after everything folded so far (a live
// move); anything else re-folds the match from the store, which is exact in
// every case.
func (n *node) fold(ctx context.Context, fresh []*nostr.Event, now int64) ([]string, error) {
	sort.Slice(fresh, func(i, j int) bool { return match.Less(fresh[i], fresh[j]) })
	next := map[string]*match.State{}
	refold := map[string]bool{}
	for _, ev := range fresh {
		for _, m := range store.MatchesOf(ev) {
			if refold[m] {
				continue
			}
			s := next[m]
			if s == nil {
				if s = n.state(m); s != nil {
					s = s.Clone()
				}
			}
			if s == nil || !s.Extend(ev, now) {
				refold[m] = true
				continue
			}
			next[m] = s
		}
	}
	var players []string
	note := func(before, s *match.State) {
		if s != nil && before == nil {
			players = append(players, s.First)
		}
		if s != nil && s.Accepted && (before == nil || !before.Accepted) {
			players = append(players, s.Second)
		}
	}
	for id, s := range next {
		if refold[id] {
			continue
		}
		before := n.state(id)
		if err := n.keep(ctx, s); err != nil {
			return players, err
		}
		note(before, s)
	}
	for id := range refold {
		before := n.state(id)
		s, err := n.refold(ctx, id)
		if err != nil {
			return players, err
		}
		note(before, s)
	}
	return players, nil
}

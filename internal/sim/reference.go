package sim

import (
	"context"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/match"
	"vesper/nostr"
	"vesper/nostr/relay"
)

// GameFilters are what a verifier follows (PROTOCOL.md section 1):
// challenges by their topic tag, and every other match kind.
func GameFilters() []gn.Filter {
	var kinds []int
	for _, k := range nostr.GameKinds() {
		if nostr.IsMatchKind(k) {
			kinds = append(kinds, k)
		}
	}
	return []gn.Filter{
		{Kinds: []int{nostr.KindChallenge}, Tags: gn.TagMap{nostr.TopicTag: {nostr.GamesTopic}}},
		{Kinds: kinds},
	}
}

// FetchAll returns every game event the relays hold that passes the
// checks of section 1, once each.
func FetchAll(ctx context.Context, urls []string, timeout time.Duration) ([]*nostr.Event, error) {
	got, err := relay.FetchWith(ctx, urls, GameFilters(), relay.FetchOptions{Timeout: timeout})
	out := make([]*nostr.Event, 0, len(got))
	for _, r := range got {
		out = append(out, r.Event)
	}
	return out, err
}

// Reference folds every match the events hold. seenAt is when a verifier
// first received each event (missing: its created_at, as section 6 says).
// Challenges that make no valid match are left out.
func Reference(events []*nostr.Event, seenAt map[string]int64) map[string]*match.State {
	byMatch := map[string][]*nostr.Event{}
	for _, ev := range events {
		if ev.Kind == nostr.KindChallenge {
			byMatch[ev.ID] = append(byMatch[ev.ID], ev)
			continue
		}
		if !nostr.IsMatchKind(ev.Kind) {
			continue
		}
		for _, id := range nostr.MatchRefs(ev) {
			byMatch[id] = append(byMatch[id], ev)
		}
	}
	out := map[string]*match.State{}
	for id, evs := range byMatch {
		if s, err := match.Fold(id, evs, seenAt); err == nil {
			out[id] = s
		}
	}
	return out
}

package sim

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/match"
	"vesper/nostr"
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
// checks of section 1, once each, by created_at then id. It reads each
// relay with go-nostr's own client and pages by itself, so that the
// reference does not depend on the relay client under test (nostr/relay).
func FetchAll(ctx context.Context, urls []string, timeout time.Duration) ([]*nostr.Event, error) {
	byID := map[string]*nostr.Event{}
	var errs []error
	for _, u := range urls {
		evs, err := fetchRelay(ctx, u, timeout)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", u, err))
		}
		for _, ev := range evs {
			byID[ev.ID] = ev
		}
	}
	out := make([]*nostr.Event, 0, len(byID))
	for _, ev := range byID {
		out = append(out, ev)
	}
	slices.SortFunc(out, func(a, b *nostr.Event) int {
		return cmp.Or(cmp.Compare(a.CreatedAt, b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return out, errors.Join(errs...)
}

// fetchPage is the limit of each query; relays may return fewer.
const fetchPage = 200

// fetchRelay pages backwards through one relay: each query asks for events
// no newer than the oldest second of the page before (inclusive, so that
// second is read again and its events already seen are skipped), until a
// query brings nothing. It never takes a short page for the last one: a
// relay may hold events that fail the checks, and those take room in a
// page without being returned.
func fetchRelay(ctx context.Context, url string, timeout time.Duration) ([]*nostr.Event, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r, err := gn.RelayConnect(ctx, url)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out []*nostr.Event
	seen := map[string]bool{}
	for _, f := range GameFilters() {
		var until *gn.Timestamp
		for {
			pf := f
			pf.Until, pf.Limit = until, fetchPage
			page, err := r.QuerySync(ctx, pf)
			if err != nil {
				return out, err
			}
			if len(page) == 0 {
				break
			}
			fresh := 0
			oldest := page[0].CreatedAt
			for _, ev := range page {
				oldest = min(oldest, ev.CreatedAt)
				if seen[ev.ID] {
					continue
				}
				seen[ev.ID] = true
				fresh++
				if nostr.Verify(ev) == nil {
					out = append(out, ev)
				}
			}
			if fresh == 0 {
				// A whole page of one second already read: step past it.
				if until == nil || *until == 0 {
					break
				}
				oldest = *until - 1
			}
			until = &oldest
		}
	}
	return out, nil
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

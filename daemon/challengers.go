package daemon

import (
	"context"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/nostr"
	"vesper/nostr/relay"
)

// A challenger is followed only once someone accepts (players, issue 13),
// but the site lists an open challenge only when its challenger's profile
// declares a bot: a new bot's challenges stayed off the index, its page
// saying it "does not declare bot: true" when its profile had simply never
// been fetched. So each challenger of an open challenge has its profile
// fetched once per run, in one query per batch, without being followed
// (issue 26, item 3).

// profileFetchTimeout bounds one batch's query, every relay together.
const profileFetchTimeout = 15 * time.Second

// askChallengers sends for fetching the profiles of the challengers of
// the open challenges among ids that this run has not asked for and the
// store lacks. A batch the fetcher has no room for is forgotten, to be
// asked again with the challenger's next challenge.
func (l *loop) askChallengers(ctx context.Context, ids []string) {
	var batch []string
	for _, id := range ids {
		s := l.n.state(id)
		if s == nil || s.Accepted || l.profileAsked[s.First] {
			continue
		}
		if _, known, err := l.n.st.Profile(ctx, s.First); err != nil || known {
			continue
		}
		l.profileAsked[s.First] = true
		batch = append(batch, s.First)
	}
	if len(batch) == 0 {
		return
	}
	select {
	case l.profileAsk <- batch:
	default:
		for _, pk := range batch {
			delete(l.profileAsked, pk)
		}
	}
	if len(l.profileAsked) > 100_000 {
		clear(l.profileAsked) // endless fresh keys cost memory no longer
	}
}

// challengeIDs are the ids of the challenges among items.
func challengeIDs(items []item) []string {
	var ids []string
	for _, it := range items {
		if it.role == roleChallenge {
			ids = append(ids, it.Event.ID)
		}
	}
	return ids
}

// profileFetcher fetches each batch of profiles from the configured relays
// and sends what comes on out, where the loop stores it like any profile.
func (n *Daemon) profileFetcher(ctx context.Context, ask <-chan []string, out chan<- relay.Received) {
	for {
		var batch []string
		select {
		case <-ctx.Done():
			return
		case batch = <-ask:
		}
		if len(batch) == 0 {
			continue // a filter without authors would ask for every profile
		}
		got, err := relay.FetchWith(ctx, n.relays, []gn.Filter{{Kinds: []int{nostr.KindProfile}, Authors: batch}},
			relay.FetchOptions{Timeout: profileFetchTimeout, Key: n.key, Logger: n.log})
		if err != nil && ctx.Err() == nil {
			n.log.Warn("challengers' profiles", "asked", len(batch), "got", len(got), "err", err)
		}
		for _, r := range got {
			select {
			case out <- r:
			case <-ctx.Done():
				return
			}
		}
	}
}

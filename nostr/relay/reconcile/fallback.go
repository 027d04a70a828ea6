package reconcile

import (
	"context"
	"errors"
	"slices"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/nostr"
	"vesper/nostr/relay/internal/wire"
)

// maxRevealRounds bounds how many times the fallback tracks matches named
// by the events it has just fetched: a relay that answers each query with
// events naming new matches cannot keep it busy for ever.
const maxRevealRounds = 3

// fallback syncs one relay without NIP-77.
func (s *syncer) fallback(ctx context.Context, st *Stats, matches []string) {
	start := time.Now()
	defer func() { st.Elapsed += time.Since(start) }()
	ctx, cancel := context.WithTimeout(ctx, s.opts.RelayTimeout)
	defer cancel()
	rs, err := s.open(ctx, st)
	if err != nil {
		st.Error, st.AuthRequired = err.Error(), errors.Is(err, wire.ErrAuthNoKey)
		s.opts.Logger.Warn("relay: sync failed", "relay", st.Relay, "err", err)
		return
	}
	defer rs.close()
	if err := rs.runFallback(ctx, matches); err != nil {
		st.Error, st.AuthRequired = err.Error(), errors.Is(err, wire.ErrAuthNoKey)
		rs.log.Warn("relay: sync failed", "err", err)
	}
}

func (rs *relaySession) runFallback(ctx context.Context, matches []string) error {
	var fetched []*gn.Event
	count := func(evs []*gn.Event) { fetched = append(fetched, evs...) }
	if !rs.s.opts.FallbackOnly {
		sent, err := rs.challenges(ctx)
		count(sent)
		if err != nil {
			return err
		}
		// A new challenge is a match to track like the open ones.
		for _, ev := range sent {
			matches = append(matches, ev.ID)
		}
		recent, err := rs.recent(ctx)
		count(recent)
		if err != nil {
			return err
		}
		// A match with a new event is asked about whole: Open may have
		// left it out (dormant).
		for _, ev := range recent {
			matches = append(matches, matchRefs(ev)...)
		}
	}
	asked := map[string]bool{}
	for round := 0; len(matches) > 0 && round < maxRevealRounds; round++ {
		var todo []string
		for _, m := range matches {
			if !asked[m] && nostr.IsLowerHex(m, 64) {
				asked[m] = true
				todo = append(todo, m)
			}
		}
		slices.Sort(todo)
		var next []*gn.Event
		for chunk := range slices.Chunk(todo, chunkSize) {
			sent, err := rs.matchChunk(ctx, chunk, count)
			next = append(next, sent...)
			if err != nil {
				return err
			}
		}
		// Events naming matches not asked about yet (an event with two g
		// tags) are tracked, a bounded number of rounds.
		matches = matches[:0]
		for _, ev := range next {
			for _, m := range matchRefs(ev) {
				if !asked[m] {
					matches = append(matches, m)
				}
			}
		}
	}
	for _, ev := range fetched {
		if ev.Kind == nostr.KindChallenge {
			rs.st.Revealed = append(rs.st.Revealed, ev.ID)
		}
	}
	return nil
}

// challenges fetches the challenges since Options.ChallengesSince.
func (rs *relaySession) challenges(ctx context.Context) ([]*gn.Event, error) {
	f := syncFilters()[0]
	// A relay whose NIP-77 view failed its check is scanned whole: its
	// reconciliation cannot say which old challenges reached it late.
	if since := rs.s.opts.ChallengesSince(rs.url); since > 0 && !rs.st.Untrusted {
		ts := gn.Timestamp(since)
		f.Since = &ts
	}
	rs.progress("challenges")
	return rs.query(ctx, f)
}

// recent fetches the events of the match kinds since
// Options.MatchesSince, if set.
func (rs *relaySession) recent(ctx context.Context) ([]*gn.Event, error) {
	if rs.s.opts.MatchesSince == nil {
		return nil, nil
	}
	since := rs.s.opts.MatchesSince(rs.url)
	if since <= 0 {
		return nil, nil
	}
	ts := gn.Timestamp(since)
	rs.progress("matches")
	return rs.query(ctx, gn.Filter{Kinds: wire.MatchKinds(), Since: &ts})
}

// matchChunk fetches the events of a chunk of matches, and the challenges
// of those the store lacks: by id, and of kind 4420 so that nothing else
// passes for one. It returns the match events; count sees everything
// sent.
func (rs *relaySession) matchChunk(ctx context.Context, chunk []string, count func([]*gn.Event)) ([]*gn.Event, error) {
	rs.progress("matches")
	sent, err := rs.query(ctx, gn.Filter{Kinds: wire.MatchKinds(), Tags: gn.TagMap{nostr.MatchTag: slices.Clone(chunk)}})
	count(sent)
	if err != nil {
		return sent, err
	}
	known, err := rs.s.opts.Known(ctx, chunk)
	if err != nil {
		rs.s.failLocal(err)
		return sent, err
	}
	var lack []string
	for _, m := range chunk {
		if !known[m] && !rs.sent[m] {
			lack = append(lack, m)
		}
	}
	if len(lack) > 0 {
		chs, err := rs.query(ctx, gn.Filter{IDs: lack, Kinds: []int{nostr.KindChallenge}})
		count(chs)
		if err != nil {
			return sent, err
		}
	}
	return sent, nil
}

// matchRefs are the 64-hex g values of an event of the match kinds.
func matchRefs(ev *gn.Event) []string {
	if !nostr.IsStoredWithMatch(ev.Kind) {
		return nil
	}
	var out []string
	for _, m := range nostr.MatchRefs(ev) {
		if nostr.IsLowerHex(m, 64) {
			out = append(out, m)
		}
	}
	return out
}

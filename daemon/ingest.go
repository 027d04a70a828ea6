package daemon

import (
	"context"
	"sort"
	"sync"

	"vesper/match"
	"vesper/nostr"
	"vesper/nostr/relay"
	"vesper/store"
)

// ingest stores a batch of checked events (each once, remembering every
// relay that had it), keeps kind 0 profiles, re-folds each touched match,
// and returns the pubkeys of players it has not seen before.
func (n *Daemon) ingest(ctx context.Context, batch []relay.Received) ([]string, error) {
	now := n.clock()
	fresh, err := n.put(ctx, batch, now)
	if err != nil || len(fresh) == 0 {
		return nil, err
	}
	return n.fold(ctx, fresh, now)
}

// put stores a batch of checked events (each once, remembering every relay
// that had it) and kind 0 profiles, and returns the events that were new.
// An event every match ignores for what it is (over 65536 bytes, or not
// exactly one g tag) is stored as its stub (match.Stub: under at most
// match.StubMatches of the matches it names); an event that names no match
// is not stored; and the quotas drop what is over them (counted in
// metrics).
func (n *Daemon) put(ctx context.Context, batch []relay.Received, now int64) ([]*nostr.Event, error) {
	var in []store.Incoming
	q := n.newBatchQuota(now)
	for _, r := range batch {
		if r.Event.Kind == nostr.KindProfile {
			// A profile is shown on the site: one over the event size limit
			// is somebody's way of filling the store and the pages.
			if nostr.TooLarge(r.Event) {
				n.met.rejected("profile_too_large")
				continue
			}
			if err := n.st.PutProfile(ctx, r.Event); err != nil {
				n.met.rejected("profile")
			}
			continue
		}
		if r.Event.Kind == nostr.KindRelayList {
			// A followed player's relay list (NIP-65): where else to read
			// its events. Kept in memory, asked for again on each connect.
			n.lists.add(r.Event)
			continue
		}
		n.met.received()
		if r.Event.Kind != nostr.KindChallenge && !nostr.IsStoredWithMatch(r.Event.Kind) {
			n.met.rejected("kind")
			continue
		}
		if r.Event.Kind == nostr.KindReveal && !revealStorable(r.Event) {
			n.met.rejected("reveal")
			continue
		}
		// The store writes the event's canonical JSON itself (no Raw).
		item := store.Incoming{Event: r.Event, Relay: r.Relay, SeenAt: now}
		matches := store.MatchesOf(r.Event)
		if len(matches) == 0 {
			n.met.rejected("no_match")
			continue
		}
		if stub := match.Stub(r.Event); stub != nil {
			item.Event = stub
			matches = store.MatchesOf(stub)
		}
		ok, err := q.admit(ctx, item.Event, r.Relay, matches)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		in = append(in, item)
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
			if match.IsStub(in[i].Event) {
				n.met.stubbed()
			}
			fresh = append(fresh, in[i].Event)
		}
	}
	return fresh, nil
}

// fold brings the states of the matches of fresh up to date and returns
// the pubkeys of players it has not seen before. New events extend their
// match's state when they sort after everything folded so far (a live
// move), or are placed in it when the fold ignores them wherever they fall
// (Insert: backdated junk costs what it takes to place it); anything else
// re-folds the match from the store, which is exact in every case.
func (n *Daemon) fold(ctx context.Context, fresh []*nostr.Event, now int64) ([]string, error) {
	n.foldMu.RLock()
	defer n.foldMu.RUnlock()
	sort.Slice(fresh, func(i, j int) bool { return match.Less(fresh[i], fresh[j]) })
	// A match the daemon does not keep may still be a valid one, final or
	// expired, which only the store holds: a late event re-folds it.
	var absent []string
	for _, ev := range fresh {
		for _, m := range store.MatchesOf(ev) {
			if m != ev.ID && n.state(m) == nil {
				absent = append(absent, m)
			}
		}
	}
	stored, err := n.st.HaveSummaries(ctx, absent)
	if err != nil {
		return nil, err
	}
	next := map[string]*match.State{}
	refold := map[string]bool{}
	for _, ev := range fresh {
		if ev.Kind == nostr.KindReveal {
			// The fold never reads a reveal: only the match's page and
			// match.json change, which the site re-folds from the store.
			for _, m := range store.MatchesOf(ev) {
				n.siteChanged(m)
			}
			continue
		}
		for _, m := range store.MatchesOf(ev) {
			if refold[m] {
				continue
			}
			s := next[m]
			if s == nil {
				if s = n.state(m); s != nil {
					s = s.Clone()
				} else if stored[m] {
					refold[m] = true
					continue
				} else if ev.ID != m {
					// No valid match known: the event changes nothing until
					// its challenge comes, whose own arrival re-folds the
					// match from the store, this event included.
					continue
				}
			}
			if s == nil || !(s.Extend(ev, now) || s.Insert(ev, now)) {
				refold[m] = true
				continue
			}
			next[m] = s
		}
	}
	var players []string
	// Players are followed from the accept on (see players).
	note := func(before, s *match.State) {
		if s != nil && s.Accepted && (before == nil || !before.Accepted) {
			players = append(players, s.First, s.Second)
		}
	}
	var kept []*match.State
	for id, s := range next {
		if refold[id] {
			continue
		}
		note(n.state(id), s)
		kept = append(kept, s)
	}
	if err := n.keepAll(ctx, kept); err != nil {
		return players, err
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

// relayQuota counts the new challenges each relay delivered in the current
// hour: challenges cost nothing to make and each one is a match to store,
// fold and list, so one relay's flood is cut off at lim.RelayChallenges.
type relayQuota struct {
	mu   sync.Mutex
	hour int64
	n    map[string]int
}

// take counts one challenge from relay at now and reports whether it is
// within limit (limit <= 0: no quota).
func (q *relayQuota) take(relay string, now int64, limit int) bool {
	if limit <= 0 {
		return true
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if h := now / 3600; h != q.hour || q.n == nil {
		q.hour, q.n = h, map[string]int{}
	}
	if q.n[relay] >= limit {
		return false
	}
	q.n[relay]++
	return true
}

// batchQuota applies the quotas to one batch: the store's counts plus what
// the batch itself has admitted so far.
type batchQuota struct {
	n        *Daemon
	now      int64
	open     map[string]int  // author -> open challenges, store + batch
	admitted map[string]bool // ids the batch has admitted
}

func (n *Daemon) newBatchQuota(now int64) *batchQuota {
	return &batchQuota{n: n, now: now, open: map[string]int{}, admitted: map[string]bool{}}
}

// admit reports whether ev, delivered by relay and belonging to matches,
// is within the quotas, counting it if so. The daemon's own events (relay
// "") and copies of stored events are always admitted: they add nothing.
func (q *batchQuota) admit(ctx context.Context, ev *nostr.Event, relayURL string, matches []string) (bool, error) {
	// A second copy in one batch (the backfill and the sync both sent it,
	// or two relays did) is a copy like a stored one: counting it again
	// would drop another event in its place.
	if relayURL == "" || q.admitted[ev.ID] {
		return true, nil
	}
	over, err := q.over(ctx, ev, relayURL, matches)
	if err == nil && over == "" {
		q.admitted[ev.ID] = true
	}
	if err != nil || over == "" {
		return err == nil, err
	}
	// Checked only when over a quota, to keep a query off the common path.
	if has, err := q.n.st.HasEvent(ctx, ev.ID); err != nil || has {
		return err == nil, err
	}
	q.n.met.quota(over)
	return false, nil
}

// over returns the quota ev exceeds, "" if none, and counts it otherwise.
func (q *batchQuota) over(ctx context.Context, ev *nostr.Event, relayURL string, matches []string) (string, error) {
	lim := q.n.lim
	if ev.Kind == nostr.KindChallenge {
		// A copy of a stored challenge (every reconnect re-reads the last
		// minutes) must not spend the relay's hourly budget.
		if has, err := q.n.st.HasEvent(ctx, ev.ID); err != nil || has {
			return "", err
		}
		counted := lim.OpenPerAuthor > 0 && int64(ev.CreatedAt) >= q.now-match.ChallengeExpiry
		if counted {
			c, ok := q.open[ev.PubKey]
			if !ok {
				var err error
				if c, err = q.n.st.OpenChallenges(ctx, ev.PubKey, q.now-match.ChallengeExpiry); err != nil {
					return "", err
				}
				q.open[ev.PubKey] = c
			}
			if c >= lim.OpenPerAuthor {
				return "open_challenges", nil
			}
		}
		if !q.n.quota.take(relayURL, q.now, lim.RelayChallenges) {
			return "relay_challenges", nil
		}
		if counted {
			q.open[ev.PubKey]++
		}
		return "", nil
	}
	if lim.EventsPerAuthor <= 0 || ev.PubKey == q.n.self {
		return "", nil
	}
	for _, m := range matches {
		c, err := q.n.pairs.get(ctx, q.n.st, m, ev.PubKey)
		if err != nil {
			return "", err
		}
		if c >= lim.EventsPerAuthor {
			return "match_events", nil
		}
	}
	for _, m := range matches {
		q.n.pairs.add(m, ev.PubKey)
	}
	return "", nil
}

// pairCounts caches, per (match, author), the events the store holds, so
// that the per-author quota costs one query per pair rather than one per
// event. It forgets everything past maxPairs pairs (the counts are then
// read again): bounded memory under a flood of fresh keys.
type pairCounts struct {
	mu sync.Mutex
	m  map[[2]string]int
}

const maxPairs = 100_000

func (p *pairCounts) get(ctx context.Context, st *store.Store, match, author string) (int, error) {
	key := [2]string{match, author}
	p.mu.Lock()
	c, ok := p.m[key]
	p.mu.Unlock()
	if ok {
		return c, nil
	}
	c, err := st.AuthorEvents(ctx, match, author)
	if err != nil {
		return 0, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil || len(p.m) >= maxPairs {
		p.m = map[[2]string]int{}
	}
	if _, raced := p.m[key]; !raced {
		p.m[key] = c
	}
	return p.m[key], nil
}

// add counts one more admitted event of the pair; it is called after get,
// so an absent pair (forgotten meanwhile) is read again next time.
func (p *pairCounts) add(match, author string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	key := [2]string{match, author}
	if c, ok := p.m[key]; ok {
		p.m[key] = c + 1
	}
}

// revealStorable says whether a reveal is worth keeping: one g tag (the
// reveal package ignores any other as a whole, as section 1 does a move's)
// and within section 1's size limit. A match event over the limit is kept
// as a stub because the fold must list it; an ignored reveal is listed by
// nobody, so its body is not worth a byte of the store.
func revealStorable(ev *nostr.Event) bool {
	return nostr.SingleG(ev) == nil && !nostr.TooLarge(ev)
}

package daemon

import (
	"context"
	"sync"

	"vesper/match"
	"vesper/nostr"
	"vesper/store"
)

// relayQuota counts the new challenges each relay delivered in the current
// hour: challenges cost nothing to make and each one is a match to store,
// fold and list, so one relay's flood is cut off at lim.RelayChallenges
// (and what it cuts off is held, not lost: held.go).
type relayQuota struct {
	mu      sync.Mutex
	hour    int64
	n       map[string]int
	retried int64 // the hour whose budget the held challenges were last offered
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

// newHour reports, once per hour of now, that the hour is new to the held
// challenges' retry.
func (q *relayQuota) newHour(now int64) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if h := now/3600 + 1; h != q.retried {
		q.retried = h
		return true
	}
	return false
}

// batchQuota applies the quotas to one batch: the store's counts plus what
// the batch itself has admitted so far. Only events new to the store are
// counted (issue 30 item 2): a relay re-sending a match's events adds
// nothing, so it must not spend its authors' quota.
type batchQuota struct {
	n        *Daemon
	now      int64
	known    map[string]bool         // ids of the batch already stored: copies
	answers  map[string][]string     // match -> authors of the batch's accepts and moves
	open     map[string]int          // author -> open challenges, store + batch
	admitted map[string]bool         // ids the batch has admitted
	players  map[string]matchPlayers // match -> its players, as asked
	// last says this is the batch's second pass (after the fold): an
	// event still over the per-match quota is dropped, not deferred.
	last bool
	// retried says the batch is held challenges offered a new hour's
	// budget: each was counted when it was first held, so a drop now
	// counts nothing.
	retried bool

	commits map[string]*commits // match -> its committing events, for reveals

	held     []item // new challenges over their relay's budget
	deferred []item // events over the per-match quota, for after the fold
}

func (n *Daemon) newBatchQuota(ctx context.Context, now int64, items []item) (*batchQuota, error) {
	q := &batchQuota{n: n, now: now, open: map[string]int{}, admitted: map[string]bool{},
		answers: map[string][]string{}, players: map[string]matchPlayers{}}
	var ids []string
	for _, it := range items {
		if it.Relay == "" {
			continue
		}
		ids = append(ids, it.Event.ID)
		if it.role == roleAnswer {
			for _, m := range it.Matches {
				q.answers[m] = append(q.answers[m], it.Event.PubKey)
			}
		}
	}
	var err error
	q.known, err = n.st.KnownIDs(ctx, ids)
	return q, err
}

// admit reports whether it is within the quotas, counting it if so. The
// daemon's own events (relay "") and copies of stored events are always
// admitted: they add nothing. A challenge over its relay's budget is kept
// in q.held, an event over the per-match quota in q.deferred.
func (q *batchQuota) admit(ctx context.Context, it item) (bool, error) {
	ev := it.Event
	// A second copy in one batch (the backfill and the sync both sent it,
	// or two relays did) is a copy like a stored one: counting it again
	// would drop another event in its place.
	if it.Relay == "" || q.known[ev.ID] || q.admitted[ev.ID] {
		return true, nil
	}
	var ok bool
	var err error
	switch it.role {
	case roleChallenge:
		ok, err = q.admitChallenge(ctx, it)
	case roleReveal:
		if ok, err = q.admitReveal(ctx, it); ok && err == nil {
			ok, err = q.admitMatchEvent(ctx, it)
		}
	default:
		ok, err = q.admitMatchEvent(ctx, it)
	}
	if ok && err == nil {
		q.admitted[ev.ID] = true
	}
	return ok, err
}

// admitChallenge applies the per-author and per-relay challenge quotas. A
// challenge someone else answered (an accept or a move from another key,
// in this batch or stored) is a game, never dropped (issue 30 item 4).
func (q *batchQuota) admitChallenge(ctx context.Context, it item) (bool, error) {
	ev, lim := it.Event, q.n.lim
	counted := lim.OpenPerAuthor > 0 && int64(ev.CreatedAt) >= q.now-match.ChallengeExpiry
	if counted {
		c, err := q.openOf(ctx, ev.PubKey)
		if err != nil {
			return false, err
		}
		if c >= lim.OpenPerAuthor {
			return q.unlessAnswered(ctx, ev, func() { q.dropped("open_challenges") })
		}
	}
	if !q.n.quota.take(it.Relay, q.now, lim.RelayChallenges) {
		return q.unlessAnswered(ctx, ev, func() { q.hold(it) })
	}
	if counted {
		q.open[ev.PubKey]++
	}
	return true, nil
}

// unlessAnswered admits a challenge over quota when another key answered
// it; otherwise it calls drop.
func (q *batchQuota) unlessAnswered(ctx context.Context, ev *nostr.Event, drop func()) (bool, error) {
	if q.answeredByOther(ev.ID, ev.PubKey) {
		return true, nil
	}
	if named, err := q.n.st.NamedByOther(ctx, ev.ID, ev.PubKey); err != nil || named {
		return err == nil, err
	}
	drop()
	return false, nil
}

// dropped counts a drop by quota, unless the batch offers held challenges
// again: they were counted once, when first held.
func (q *batchQuota) dropped(quota string) {
	if !q.retried {
		q.n.met.quota(quota)
	}
}

// hold keeps a challenge over its relay's budget to retry (held.go). It is
// counted as dropped when the store holds it for the first time
// (holdAfter), so that one a relay sends again, or an hour offers again,
// counts once; one too large to hold is dropped now.
func (q *batchQuota) hold(it item) {
	if len(it.Raw) > maxHeldBytes { // the bytes the store would hold
		q.dropped("relay_challenges")
		return
	}
	q.held = append(q.held, it)
}

func (q *batchQuota) answeredByOther(match, author string) bool {
	for _, pk := range q.answers[match] {
		if pk != author {
			return true
		}
	}
	return false
}

func (q *batchQuota) openOf(ctx context.Context, author string) (int, error) {
	if c, ok := q.open[author]; ok {
		return c, nil
	}
	c, err := q.n.st.OpenChallenges(ctx, author, q.now-match.ChallengeExpiry)
	if err == nil {
		q.open[author] = c
	}
	return c, err
}

// admitMatchEvent applies the per-author, per-match quota. A match's
// players are never cut below what the rules let them play (issue 30
// item 3): their allowance is the quota plus their share of the longest
// game the rules allow. Who the players are is the fold's to say, so an
// event over the quota whose match the daemon does not know yet (its
// challenge and accept are in the same batch) waits for the fold.
func (q *batchQuota) admitMatchEvent(ctx context.Context, it item) (bool, error) {
	ev, lim := it.Event, q.n.lim.EventsPerAuthor
	if lim <= 0 || ev.PubKey == q.n.self {
		return true, nil
	}
	matches := it.Matches
	for _, m := range matches {
		c, err := q.n.pairs.get(ctx, q.n.st, m, ev.PubKey)
		if err != nil {
			return false, err
		}
		if c < lim {
			continue
		}
		allow, known, err := q.allowance(ctx, m, ev.PubKey)
		if err != nil {
			return false, err
		}
		if c < allow {
			continue
		}
		if !known && !q.last {
			q.deferred = append(q.deferred, it)
			return false, nil
		}
		q.dropped("match_events")
		return false, nil
	}
	for _, m := range matches {
		q.n.pairs.add(m, ev.PubKey)
	}
	return true, nil
}

// allowance is what author may add to match: the quota, or for one of its
// two players the quota plus the first player's share of the longest game
// its rules allow (match.MaxPlies). known
// says whether the match's players are known.
func (q *batchQuota) allowance(ctx context.Context, id, author string) (int, bool, error) {
	lim := q.n.lim.EventsPerAuthor
	p, err := q.playersOf(ctx, id)
	if err != nil || p.kind == "" {
		return lim, false, err
	}
	if author != p.first && author != p.second {
		return lim, p.second != "", nil
	}
	return lim + (match.MaxPlies(p.kind)+1)/2, true, nil
}

// matchPlayers are a match's two players (second "" until accepted) and its
// game, as the fold says: kind "" when no fold knows the match.
type matchPlayers struct{ first, second, kind string }

// playersOf asks the state the daemon keeps, else the stored summary,
// and, for a match not accepted by them, in the batch's last pass (once
// the rest of it is stored) a fold of the stored events: a backfill
// stores a whole match before any fold.
func (q *batchQuota) playersOf(ctx context.Context, id string) (matchPlayers, error) {
	if p, ok := q.players[id]; ok {
		return p, nil
	}
	var p matchPlayers
	if s := q.n.state(id); s != nil {
		p = matchPlayers{s.First, s.Second, s.Kind}
	} else if sum, ok, err := q.n.st.Summary(ctx, id); err != nil {
		return p, err
	} else if ok {
		p = matchPlayers{sum.First, sum.Second, sum.Game}
	}
	// The batch may hold the accept that names the second player.
	if p.second == "" && q.last {
		s, _, err := foldOne(ctx, q.n.st, id)
		if err != nil {
			return p, err
		}
		if s != nil {
			p = matchPlayers{s.First, s.Second, s.Kind}
		}
	}
	if p.kind != "" || q.last {
		q.players[id] = p
	}
	return p, nil
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

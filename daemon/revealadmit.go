package daemon

import (
	"context"

	"vesper/nostr"
	"vesper/reveal"
)

// commits are one match's committing events (section 8.2: its moves and
// results carrying a reasoning tag) and, per author, the events that
// author's stored reveals already name: what reveal.Admit asks.
type commits struct {
	by    map[string]string          // committing event -> its author
	named map[string]map[string]bool // author -> events their reveals name
}

func (c *commits) committed(id string) (string, bool) {
	a, ok := c.by[id]
	return a, ok
}

// admitReveal keeps a reveal only when it belongs to its match (issue
// 38 item 1, reveal.Admit): by a player, naming a committing event of
// theirs that their stored reveals do not name yet. Anything else is
// dropped before the store and counted: a stranger's reveal, however many
// keys send it, never reaches the match's page or match.json, and a
// player keeps at most one reveal per event they committed.
//
// The rule for a reveal that arrives before what it names (its match's
// accept, or the committing move, relayed late): within one batch it waits
// for the rest of the batch to be stored (the second pass); across
// batches it is dropped, and the next sync of the match offers it again,
// as it does any event the store lacks. Honest reveals come after the
// game (the seat reveals once the result is final), so they find their
// events stored.
func (q *batchQuota) admitReveal(ctx context.Context, it item) (bool, error) {
	ev := it.Event
	matches := it.Matches
	if len(matches) != 1 { // screen keeps only reveals with one g tag
		q.n.met.rejected("reveal")
		return false, nil
	}
	m := matches[0]
	p, err := q.playersOf(ctx, m)
	if err != nil {
		return false, err
	}
	if p.second == "" && !q.last {
		// The batch may hold the match's challenge and accept.
		q.deferred = append(q.deferred, it)
		return false, nil
	}
	c := &commits{}
	if p.second != "" && (ev.PubKey == p.first || ev.PubKey == p.second) {
		if c, err = q.commitsOf(ctx, m); err != nil {
			return false, err
		}
	}
	fresh, why := reveal.Admit(ev, p.first, p.second, c.committed, c.named[ev.PubKey])
	if why == reveal.NamesNothing && !q.last {
		// The batch may hold the committing event.
		q.deferred = append(q.deferred, it)
		return false, nil
	}
	if why != "" {
		q.n.met.rejected(why)
		return false, nil
	}
	if c.named[ev.PubKey] == nil {
		c.named[ev.PubKey] = map[string]bool{}
	}
	for _, id := range fresh {
		c.named[ev.PubKey][id] = true
	}
	return true, nil
}

// commitsOf reads a match's committing events and its stored reveals once
// per batch pass.
func (q *batchQuota) commitsOf(ctx context.Context, m string) (*commits, error) {
	if c, ok := q.commits[m]; ok {
		return c, nil
	}
	evs, err := q.n.st.MatchEvents(ctx, m)
	if err != nil {
		return nil, err
	}
	c := &commits{by: map[string]string{}, named: map[string]map[string]bool{}}
	for _, se := range evs {
		ev := se.Event
		switch ev.Kind {
		case nostr.KindMove, nostr.KindResult:
			if _, ok := nostr.Reasoning(ev); ok {
				c.by[ev.ID] = ev.PubKey
			}
		case nostr.KindReveal:
			if c.named[ev.PubKey] == nil {
				c.named[ev.PubKey] = map[string]bool{}
			}
			for _, id := range reveal.Named(ev) {
				c.named[ev.PubKey][id] = true
			}
		}
	}
	if q.commits == nil {
		q.commits = map[string]*commits{}
	}
	q.commits[m] = c
	return c, nil
}

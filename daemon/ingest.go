package daemon

import (
	"context"
	"sort"

	"vesper/match"
	"vesper/nostr"
	"vesper/nostr/relay"
)

// ingest screens a batch (kind 0 profiles and relay lists kept, the
// rest classified) and ingests its items.
func (n *Daemon) ingest(ctx context.Context, batch []relay.Received) ([]string, error) {
	now := n.clock()
	return n.ingestItems(ctx, n.screen(ctx, batch, now), now)
}

// ingestItems stores classified items (each once, remembering every relay
// that had it), re-folds each touched match, and returns the pubkeys of
// players it has not seen before.
func (n *Daemon) ingestItems(ctx context.Context, items []item, now int64) ([]string, error) {
	players, err := n.retryHeld(ctx, now)
	if err != nil {
		return nil, err
	}
	fresh, err := n.putItems(ctx, items, now, false)
	if err != nil || len(fresh) == 0 {
		return players, err
	}
	more, err := n.fold(ctx, fresh, now)
	return append(players, more...), err
}

// put stores a batch of checked events (each once, remembering every relay
// that had it) and kind 0 profiles, and returns the items that were new;
// the quotas drop what is over them (counted in metrics).
func (n *Daemon) put(ctx context.Context, batch []relay.Received, now int64) ([]item, error) {
	return n.putItems(ctx, n.screen(ctx, batch, now), now, false)
}

// putItems stores the items the quotas admit and returns those that
// were new. Events over the per-match quota whose match's players are not
// known yet (its challenge and accept came in the same batch) are
// admitted again once the rest is stored, when the fold can tell. retried
// says the items are held challenges offered again (held.go).
func (n *Daemon) putItems(ctx context.Context, items []item, now int64, retried bool) ([]item, error) {
	fresh, deferred, err := n.admitStore(ctx, items, now, false, retried)
	if err != nil || len(deferred) == 0 {
		return fresh, err
	}
	more, _, err := n.admitStore(ctx, deferred, now, true, retried)
	return append(fresh, more...), err
}

// screen keeps kind 0 profiles and relay lists, and returns the rest of a
// batch that may be stored with a match, each event classified once
// (classify); what it does not keep is counted in metrics.
func (n *Daemon) screen(ctx context.Context, batch []relay.Received, now int64) []item {
	var in []item
	for _, r := range batch {
		switch r.Event.Kind {
		case nostr.KindProfile:
			n.putProfile(ctx, r.Event)
			continue
		case nostr.KindRelayList:
			// A followed player's relay list (NIP-65): where else to read
			// its events. Kept in memory, asked for again on each connect.
			n.lists.add(r.Event)
			continue
		}
		n.met.received()
		it, why := classify(r.Event, r.Relay, now)
		if why != "" {
			n.met.rejected(why)
			continue
		}
		in = append(in, it)
	}
	return in
}

// putProfile keeps a kind 0 profile, which the site shows: one over the
// event size limit is somebody's way of filling the store and the pages.
func (n *Daemon) putProfile(ctx context.Context, ev *nostr.Event) {
	if nostr.TooLarge(ev) {
		n.met.rejected("profile_too_large")
		return
	}
	if err := n.st.PutProfile(ctx, ev); err != nil {
		n.met.rejected("profile")
	}
}

// admitStore stores the items the quotas admit and returns the events that
// were new, and those over the per-match quota to admit again once the
// rest is stored (none when last). A challenge over its relay's budget is held, and a
// held challenge that an admitted accept or move from another key
// answers comes in with it (held.go).
func (n *Daemon) admitStore(ctx context.Context, items []item, now int64, last, retried bool) (fresh, deferred []item, err error) {
	if len(items) == 0 {
		return nil, nil, nil
	}
	q, err := n.newBatchQuota(ctx, now, items)
	if err != nil {
		return nil, nil, err
	}
	q.last, q.retried = last, retried
	var in []item
	for _, it := range items {
		ok, err := q.admit(ctx, it)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			in = append(in, it)
		}
	}
	released, err := n.answeredHeld(ctx, q, in, now)
	if err != nil {
		return nil, nil, err
	}
	if fresh, err = n.store(ctx, append(in, released...)); err != nil {
		return nil, nil, err
	}
	if err := n.holdAfter(ctx, q, released, now); err != nil {
		return nil, nil, err
	}
	return fresh, q.deferred, nil
}

// store writes in and returns the items that were new.
func (n *Daemon) store(ctx context.Context, in []item) ([]item, error) {
	if len(in) == 0 {
		return nil, nil
	}
	stored, err := n.st.PutEvents(ctx, incoming(in))
	if err != nil {
		return nil, err
	}
	var fresh []item
	for i, isNew := range stored {
		if isNew {
			n.met.stored()
			if in[i].stub {
				n.met.stubbed()
			}
			fresh = append(fresh, in[i])
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
func (n *Daemon) fold(ctx context.Context, fresh []item, now int64) ([]string, error) {
	n.foldMu.RLock()
	defer n.foldMu.RUnlock()
	sort.Slice(fresh, func(i, j int) bool { return match.Less(fresh[i].Event, fresh[j].Event) })
	stored, err := n.storedAbsent(ctx, fresh)
	if err != nil {
		return nil, err
	}
	next, refold := n.extend(fresh, stored, now)
	var players []string
	// Players are followed from the accept on: thousands of challenges
	// from fresh keys must not make thousands of watched authors (issue 13).
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

// storedAbsent says which matches of fresh the daemon does not keep but
// the store has a summary of: a match the daemon does not keep may still
// be a valid one, final or expired, which only the store holds, and a
// late event re-folds it.
func (n *Daemon) storedAbsent(ctx context.Context, fresh []item) (map[string]bool, error) {
	var absent []string
	for _, it := range fresh {
		for _, m := range it.Matches {
			if m != it.Event.ID && n.state(m) == nil {
				absent = append(absent, m)
			}
		}
	}
	return n.st.HaveSummaries(ctx, absent)
}

// extend places fresh, in fold order, in copies of the states of their
// matches, and returns those states and the matches to re-fold from the
// store instead (stored: the absent matches the store has).
func (n *Daemon) extend(fresh []item, stored map[string]bool, now int64) (map[string]*match.State, map[string]bool) {
	next := map[string]*match.State{}
	refold := map[string]bool{}
	for _, it := range fresh {
		ev := it.Event
		if it.role == roleReveal {
			// The fold never reads a reveal: only the match's page and
			// match.json change, which the site re-folds from the store.
			for _, m := range it.Matches {
				n.siteChanged(m)
			}
			continue
		}
		for _, m := range it.Matches {
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
	return next, refold
}

package daemon

import (
	"context"

	"vesper/match"
	"vesper/store"
)

// Challenges over a relay's hourly budget are held in the store, bounded
// by lim.HeldChallenges, rather than lost (issue 30 item 4): a flood of
// junk challenges spends the budget, and a real challenge posted after it
// must still come in. One does as soon as an accept or a move from
// another key answers it, and the held ones are offered each new hour's
// budget, longest held first, before that hour's flood can spend it.

// maxHeldBytes bounds the size of a challenge that is held: a real one is
// a few hundred bytes, and 20,000 held at the 65536 bytes an event may
// have would be 1.3 GB of store.
const maxHeldBytes = 4096

// heldPage bounds the held challenges one retry reads at a time.
const heldPage = 1000

// answeredHeld returns the held challenges that the accepts and moves of
// in, from keys other than their authors, answer: they come in with them.
func (n *Daemon) answeredHeld(ctx context.Context, q *batchQuota, in []item, now int64) ([]item, error) {
	answers := map[string][]string{}
	var ids []string
	for _, it := range in {
		if it.role != roleAnswer {
			continue
		}
		for _, m := range it.Matches {
			if q.known[m] || q.admitted[m] {
				continue
			}
			if _, ok := answers[m]; !ok {
				ids = append(ids, m)
			}
			answers[m] = append(answers[m], it.Event.PubKey)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	held, err := n.st.HeldChallenges(ctx, ids)
	if err != nil {
		return nil, err
	}
	var out []item
	for _, h := range held {
		for _, pk := range answers[h.Event.ID] {
			if pk != h.Event.PubKey {
				if it, ok := n.classifyHeld(h, now); ok {
					out = append(out, it)
				}
				break
			}
		}
	}
	return out, nil
}

// classifyHeld is a held challenge as it comes in again, through the
// ingest edge like any event (it was classified when first held, but the
// store's held table keeps only the event): false when it no longer
// passes, which a store this daemon wrote does not hold.
func (n *Daemon) classifyHeld(h store.Held, now int64) (item, bool) {
	it, why := classify(h.Event, h.Relay, now)
	if why != "" {
		n.met.rejected(why)
		return it, false
	}
	return it, true
}

// holdAfter forgets the held challenges that came in and holds the
// batch's challenges over their relay's budget.
func (n *Daemon) holdAfter(ctx context.Context, q *batchQuota, released []item, now int64) error {
	ids := make([]string, len(released))
	for i, it := range released {
		ids[i] = it.Event.ID
	}
	if err := n.st.ReleaseHeld(ctx, ids); err != nil {
		return err
	}
	if len(q.held) == 0 {
		return nil
	}
	// Counted as the store holds them for the first time: one held
	// already (sent again, or offered again) counts nothing.
	added, evicted, err := n.st.HoldChallenges(ctx, incoming(q.held), now, n.lim.HeldChallenges)
	n.met.held(added, evicted)
	return err
}

// retryHeld offers the held challenges, longest held first, the budget of
// an hour it has not offered them yet, forgets those stored since and
// those past the accept window, and returns the players it saw accepted.
func (n *Daemon) retryHeld(ctx context.Context, now int64) ([]string, error) {
	if !n.quota.newHour(now) {
		return nil, nil
	}
	max := n.lim.HeldChallenges
	if max < 1 {
		max = heldPage
	}
	var players []string
	at, id := int64(0), ""
	for done := 0; done < max; done += heldPage {
		held, err := n.st.HeldAfter(ctx, at, id, heldPage)
		if err != nil || len(held) == 0 {
			return players, err
		}
		at, id = held[len(held)-1].HeldAt, held[len(held)-1].Event.ID
		more, err := n.retryPage(ctx, held, now)
		players = append(players, more...)
		if err != nil || len(held) < heldPage {
			return players, err
		}
	}
	return players, nil
}

// retryPage admits one page of held challenges as their relays delivered
// them, and releases those stored or expired.
func (n *Daemon) retryPage(ctx context.Context, held []store.Held, now int64) ([]string, error) {
	var items []item
	var gone, ids []string
	for _, h := range held {
		ids = append(ids, h.Event.ID)
		if int64(h.Event.CreatedAt) < now-match.ChallengeExpiry {
			gone = append(gone, h.Event.ID)
			continue
		}
		if it, ok := n.classifyHeld(h, now); ok {
			items = append(items, it)
		}
	}
	fresh, err := n.putItems(ctx, items, now, true)
	if err != nil {
		return nil, err
	}
	players, err := n.fold(ctx, fresh, now)
	if err != nil {
		return players, err
	}
	stored, err := n.st.KnownIDs(ctx, ids)
	if err != nil {
		return players, err
	}
	for id := range stored {
		gone = append(gone, id)
	}
	return players, n.st.ReleaseHeld(ctx, gone)
}

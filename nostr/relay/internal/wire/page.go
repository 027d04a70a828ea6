package wire

import (
	"context"
	"errors"
	"maps"
	"sync"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/nostr"
)

// Pager reads everything one filter matches from one relay, however few
// events the relay returns per query. Relays answer a REQ with the newest
// `limit` events (often capped at 500), so the Pager walks backwards: each
// page asks for events no newer than the oldest second of the page before
// ("until" is inclusive, so that second is asked again and the events of it
// already delivered are skipped), until a page brings nothing new.
type Pager struct {
	Conn     *Conn
	Key      nostr.SecretKey
	Limit    int  // events asked per page
	CapKnown bool // the relay's cap is known (NIP-11), so a short page is the last one
	Timeout  time.Duration
	// budget, if set, is the pages left to ask for; at 0 run stops with
	// ErrBudget, so a relay serving endless pages cannot keep it paging.
	Budget *int
}

type pageStats struct {
	mu       sync.Mutex
	n, fresh int
	oldest   gn.Timestamp
	atOldest map[string]struct{}
}

func (st *pageStats) add(ev *gn.Event, dup bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.n++
	if dup {
		return
	}
	st.fresh++
	switch {
	case st.fresh == 1 || ev.CreatedAt < st.oldest:
		st.oldest = ev.CreatedAt
		st.atOldest = map[string]struct{}{ev.ID: {}}
	case ev.CreatedAt == st.oldest:
		st.atOldest[ev.ID] = struct{}{}
	}
}

// run delivers every event f matches between f.Since and f.Until (or now),
// newest first, each once; max > 0 stops after that many. It returns how
// many it delivered.
func (p *Pager) Run(ctx context.Context, f gn.Filter, max int, deliver func(*gn.Event)) (int, error) {
	return p.RunFrom(ctx, f, max, deliver, nil)
}

// runFrom is run that, after each page but the last, tells progress the
// until of the next page: every event newer than it has been delivered.
func (p *Pager) RunFrom(ctx context.Context, f gn.Filter, max int, deliver func(*gn.Event), progress func(until gn.Timestamp)) (int, error) {
	var since gn.Timestamp
	if f.Since != nil {
		since = *f.Since
	}
	until := f.Until
	seen := map[string]struct{}{} // ids of the second *until already delivered
	total := 0
	authTried := false
	for {
		if p.Budget != nil {
			if *p.Budget <= 0 {
				return total, ErrBudget
			}
			*p.Budget--
		}
		pf := f
		pf.Until = until
		pf.LimitZero = false
		pf.Limit = p.Limit
		if max > 0 && max-total < pf.Limit {
			pf.Limit = max - total
		}
		st := &pageStats{}
		rej0 := p.Conn.Rejected.Load()
		boundary, bsec := seen, until // this page's own copies: the next page replaces them
		s, err := p.Conn.Subscribe(gn.Filters{pf}, func(ev *gn.Event) {
			_, dup := boundary[ev.ID]
			dup = dup && bsec != nil && ev.CreatedAt == *bsec
			st.add(ev, dup)
			if !dup {
				deliver(ev)
			}
		})
		if err != nil {
			return total, err
		}
		err = p.Conn.WaitEOSE(ctx, s, p.Timeout)
		p.Conn.Unsubscribe(s)
		if err != nil {
			retry, err := p.Conn.RetryAfterAuth(ctx, p.Key, err, &authTried)
			if retry {
				continue // the same page again, now authenticated
			}
			return total, err
		}
		st.mu.Lock()
		n, fresh, oldest, atOldest := st.n, st.fresh, st.oldest, st.atOldest
		st.mu.Unlock()
		total += fresh
		switch {
		case n == 0:
			return total, nil
		case max > 0 && total >= max:
			return total, nil
		case p.CapKnown && n < pf.Limit && p.Conn.Rejected.Load() == rej0:
			// A short page is the last one only if the relay sent nothing
			// we refused: a page shortened by forged events is not the end.
			return total, nil
		case fresh == 0:
			// Nothing new: the page was all the boundary second again. Either
			// nothing is older, or the relay holds more than a page of events
			// in that one second and the rest of them cannot be reached.
			if until == nil || *until <= since {
				return total, nil
			}
			u := *until - 1
			until, seen = &u, map[string]struct{}{}
		case until != nil && oldest == *until:
			merged := maps.Clone(seen)
			maps.Copy(merged, atOldest)
			seen = merged
		default:
			u := oldest
			until, seen = &u, atOldest
		}
		if progress != nil && until != nil {
			progress(*until)
		}
	}
}

// ErrBudget ends a session whose backfill used its page budget: the next
// session resumes from the saved progress.
var ErrBudget = errors.New("relay: backfill page budget used")

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
	w := pageWalk{until: f.Until, seen: map[string]struct{}{}, max: max}
	if f.Since != nil {
		w.since = *f.Since
	}
	authTried := false
	for {
		if p.Budget != nil {
			if *p.Budget <= 0 {
				return w.total, ErrBudget
			}
			*p.Budget--
		}
		pf := f
		pf.Until = w.until
		pf.LimitZero = false
		pf.Limit = p.Limit
		if max > 0 && max-w.total < pf.Limit {
			pf.Limit = max - w.total
		}
		rej0 := p.Conn.Rejected.Load()
		st, err := p.page(ctx, pf, w.seen, deliver)
		if err != nil {
			retry, err := p.Conn.RetryAfterAuth(ctx, p.Key, err, &authTried)
			if retry {
				continue // the same page again, now authenticated
			}
			return w.total, err
		}
		// A short page is the last one only if the relay sent nothing we
		// refused: a page shortened by forged events is not the end.
		last := p.CapKnown && p.Conn.Rejected.Load() == rej0 && !CapLike(pageSize(st))
		if w.next(st, pf.Limit, last) {
			return w.total, nil
		}
		if progress != nil && w.until != nil {
			progress(*w.until)
		}
	}
}

// page asks for one page and delivers what is new in it: the events of
// the boundary second pf.Until already delivered (seen) are skipped.
func (p *Pager) page(ctx context.Context, pf gn.Filter, seen map[string]struct{}, deliver func(*gn.Event)) (*pageStats, error) {
	st := &pageStats{}
	bsec := pf.Until // this page's own copies: the next page replaces them
	// A relay goes on sending new events that match a REQ after its EOSE
	// until the CLOSE is read: those reach the callback on the
	// connection's goroutine after this page has returned, and must not
	// (the caller reads what deliver gathered, and the next page is
	// asked below the oldest). ended, under mu, stops them.
	var mu sync.Mutex
	ended := false
	s, err := p.Conn.Subscribe(gn.Filters{pf}, func(ev *gn.Event) {
		mu.Lock()
		defer mu.Unlock()
		if ended {
			return
		}
		_, dup := seen[ev.ID]
		dup = dup && bsec != nil && ev.CreatedAt == *bsec
		st.add(ev, dup)
		if !dup {
			deliver(ev)
		}
	})
	if err != nil {
		return nil, err
	}
	err = p.Conn.WaitEOSE(ctx, s, p.Timeout)
	mu.Lock()
	ended = true
	mu.Unlock()
	p.Conn.Unsubscribe(s)
	return st, err
}

// pageWalk is where a Pager's walk down a filter has got.
type pageWalk struct {
	since gn.Timestamp
	until *gn.Timestamp
	seen  map[string]struct{} // ids of the second *until already delivered
	max   int
	total int
}

// next takes a page's stats and moves the walk to the next page; true
// when there is none. limit is what the page asked for, and last that a
// short page is known to be the last.
func (w *pageWalk) next(st *pageStats, limit int, last bool) bool {
	st.mu.Lock()
	n, fresh, oldest, atOldest := st.n, st.fresh, st.oldest, st.atOldest
	st.mu.Unlock()
	w.total += fresh
	switch {
	case n == 0:
		return true
	case w.max > 0 && w.total >= w.max:
		return true
	case last && n < limit:
		return true
	case fresh == 0:
		// Nothing new: the page was all the boundary second again. Either
		// nothing is older, or the relay holds more than a page of events
		// in that one second and the rest of them cannot be reached.
		if w.until == nil || *w.until <= w.since {
			return true
		}
		u := *w.until - 1
		w.until, w.seen = &u, map[string]struct{}{}
	case w.until != nil && oldest == *w.until:
		merged := maps.Clone(w.seen)
		maps.Copy(merged, atOldest)
		w.seen = merged
	default:
		u := oldest
		w.until, w.seen = &u, atOldest
	}
	return false
}

// CapLike reports whether n events look like an answer cut at a cap the
// relay does not announce: operators set round figures (500, 1,000, 5,000)
// or powers of two. Such a page is not taken as the last even when it is
// shorter than the limit asked for (a relay whose announced max_limit is
// above its store's cap), nor such a NIP-77 set as whole; a whole answer
// of that size costs one more query.
func CapLike(n int) bool {
	return n >= 100 && (n%100 == 0 || n&(n-1) == 0)
}

func pageSize(st *pageStats) int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.n
}

// ErrBudget ends a session whose backfill used its page budget: the next
// session resumes from the saved progress.
var ErrBudget = errors.New("relay: backfill page budget used")

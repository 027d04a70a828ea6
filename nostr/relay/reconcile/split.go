package reconcile

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/nostr/relay/internal/wire"
)

// A NIP-77 reconciliation is a query on the relay's side, and many relays
// cap queries silently: khatru's eventstore backends answer with the
// newest MaxLimit events (500 in slicestore; lmdb and badger use the
// operator's MaxLimit for negentropy too), so the relay reconciles part
// of its set and the client, taking that part as the whole, never learns
// what lies below it (issue 24). strfry refuses instead, past its
// maxSyncEvents, with NEG-ERR "blocked: too many query results".
//
// So a reconciled set is not trusted when it looks cut. Its size is
// known once the session is over: the ids both sides hold plus those only
// the relay holds (negResult.relaySize). When that size equals the
// relay's NIP-11 max_limit, or is a size a cap is set to (capLike), or
// the relay answers "too many", the created_at window is halved and each
// half reconciled the same way, down to windows whose set is whole. A
// window of one second that is still cut cannot be halved: its events
// are read by paged REQs instead (negLeaf.page), as far as the relay
// lets a REQ reach.

// negSessionBudget bounds the NIP-77 sessions of one relay in one Sync.
// A relay capped at 500 needs about one session per 250 events of its
// set; the budget covers some 16 million events, while a relay that
// answers "too many" to everything (halving never ends in a whole set)
// costs at most this many small sessions before the fallback takes over.
// A variable for the test of that bound.
var negSessionBudget = 1 << 16

// negSplitTime bounds the time one relay's splitting may take in one
// Sync; past it the relay is paged instead (the fallback). A relay that
// answers every session with a cap-like set would otherwise be halved
// down to single seconds, a session each: 65,536 sessions, 82 s of one
// core (issue 34). An honest relay capped at 500 needs about one session
// per 250 events: some 2,400 for 10,000 matches, well within it on
// loopback. A variable for the tests.
var negSplitTime = 2 * time.Minute

// tooManyFloor is the narrowest window a relay may call "too many": a
// set of one hour's events is small for any relay (strfry's default
// maxSyncEvents is a million), so a relay that refuses one is paged
// instead of split further. From the widest window (2^32 seconds) it is
// reached after 21 halvings: a relay that says "too many" to everything
// costs about 22 sessions.
const tooManyFloor = 3600

// errSplitBudget ends a reconciliation that used negSessionBudget or
// negSplitTime, and errTooManySmall one that a relay refused as "too
// many" for a window narrower than tooManyFloor.
var (
	errSplitBudget  = errors.New("relay: NIP-77: session or time budget used splitting capped windows")
	errTooManySmall = errors.New("relay: NIP-77: the relay says too many for a window of an hour or less")
)

// negLeaf is one window of a filter reconciled whole: the ids the relay
// has there and the store lacks, or, for a one-second window the relay
// would not reconcile whole, page set (its events are read by REQ).
type negLeaf struct {
	f    gn.Filter
	base gn.Filter // f without its window
	need []string
	page bool
}

// fetchBatch is how many needed ids one fetch asks for at most, before
// the relay's own max_limit (chunkSize*5 in the fetch).
const fetchBatch = 500

// byFilter merges the needs of consecutive leaves of a filter into one
// leaf over their joined windows, up to fetchBatch ids, each id once
// (windows overlap by a second): a split into hundreds of windows must not
// cost hundreds of fetches of a few ids each. The window stays in the
// filter, narrowed to the leaves it joins, because a store such as
// slicestore finds ids by scanning every event in the filter's
// created_at range. Paged leaves stay as they are.
func byFilter(leaves []negLeaf) []negLeaf {
	var out []negLeaf
	cur := -1 // the leaf of out being joined, -1 for none
	// An id is listed twice only by adjacent windows of a filter (they
	// share a second), which come one after the other: only the previous
	// window's ids are kept to drop the repeats, not every id.
	var prev map[string]bool
	var prevBase gn.Filter
	for _, l := range leaves {
		if l.page {
			out = append(out, l)
			cur = -1
			continue
		}
		if !sameFilter(prevBase, l.base) {
			prev = nil
		}
		var fresh []string
		next := make(map[string]bool, len(l.need))
		for _, id := range l.need {
			if !prev[id] && !next[id] {
				fresh = append(fresh, id)
			}
			next[id] = true
		}
		prev, prevBase = next, l.base
		if cur >= 0 && sameFilter(out[cur].base, l.base) && len(out[cur].need)+len(fresh) <= fetchBatch {
			out[cur].f.Since, out[cur].f.Until = joinBound(out[cur].f.Since, l.f.Since, false), joinBound(out[cur].f.Until, l.f.Until, true)
			out[cur].need = append(out[cur].need, fresh...)
			continue
		}
		l.need = fresh
		out = append(out, l)
		cur = len(out) - 1
	}
	return out
}

// joinBound is the bound of two windows joined: the lower since or the
// higher until, nil (open) if either is.
func joinBound(a, b *gn.Timestamp, upper bool) *gn.Timestamp {
	if a == nil || b == nil {
		return nil
	}
	if (*b > *a) == upper {
		return b
	}
	return a
}

func sameFilter(a, b gn.Filter) bool {
	ra, _ := a.MarshalJSON()
	rb, _ := b.MarshalJSON()
	return string(ra) == string(rb)
}

// capLike is wire.CapLike: a set of such a size costs one needless split
// when it is whole.
func capLike(n int) bool { return wire.CapLike(n) }

// looksCut reports whether a reconciled set of n ids may be the part of
// a larger set that a cap let through. A set larger than max_limit shows
// that the reconciliation is not cut there (strfry's max_limit bounds
// REQs only), so only a set of exactly max_limit is suspect by it.
func looksCut(n, maxLimit int) bool {
	if n <= 0 {
		return false
	}
	return n == maxLimit || capLike(n)
}

// tooMany reports a relay's refusal of a set too large to reconcile:
// strfry's NEG-ERR "blocked: too many query results".
func tooMany(err error) bool {
	var ne *NegError
	return errors.As(err, &ne) && strings.Contains(strings.ToLower(ne.Reason), "too many")
}

// negSplitter reconciles one relay's windows, halving those the relay
// cut; sessions is what is left of negSessionBudget.
type negSplitter struct {
	s        *syncer
	st       *Stats
	o        negOptions
	log      *slog.Logger
	maxLimit int // NIP-11 max_limit, 0 when not announced
	sessions int
	deadline time.Time // negSplitTime from the start (zero: none)
	// cut is the size of the first set this relay cut while the store
	// held more there: a window holding that many local items would be
	// cut too (the relay holds what the store holds, and more), so it is
	// halved without a session.
	cut int
}

// reconcile reconciles f within w against the relay and returns the
// windows it ended with. An error is recorded in st (NegError): the
// relay then gets the fallback.
func (sp *negSplitter) reconcile(ctx context.Context, f gn.Filter, w Window, items []Item) ([]negLeaf, error) {
	// Sorted once, a copy (the caller's may be shared by other relays):
	// halving keeps the order, so each half's median is at hand.
	items = slices.Clone(items)
	slices.SortFunc(items, func(a, b Item) int { return cmp.Compare(a.CreatedAt, b.CreatedAt) })
	// Depth first, lower half first: at most one pending job per level
	// of halving, so the stack stays small.
	r := &splitRun{sp: sp, f: f, items: items, stack: []negJob{{spanOf(w), items}}}
	for len(r.stack) > 0 {
		j := r.stack[len(r.stack)-1]
		r.stack = r.stack[:len(r.stack)-1]
		if sp.cut > 0 && len(j.items) >= sp.cut && r.split(j) {
			continue
		}
		if sp.sessions <= 0 || (!sp.deadline.IsZero() && time.Now().After(sp.deadline)) {
			sp.st.NegError = fmt.Sprintf("%v (%d splits)", errSplitBudget, sp.st.Splits)
			sp.log.Warn("relay: NIP-77 split too often, falling back", "splits", sp.st.Splits)
			return nil, errSplitBudget
		}
		sp.sessions--
		if leaves, end, err := r.window(ctx, j); end || err != nil {
			return leaves, err
		}
	}
	return r.out, nil
}

// negJob is a window still to reconcile, and the store's items in it.
type negJob struct {
	s     span
	items []Item
}

// splitRun is the state of one negSplitter.reconcile.
type splitRun struct {
	sp    *negSplitter
	f     gn.Filter
	items []Item // the store's, in the whole window, by created_at
	stack []negJob
	out   []negLeaf
	// whole is the first session's answer, for a relay that turns out to
	// ignore the windows; held, the ids of the store in the whole window,
	// built at the first split to tell such a relay.
	whole *negLeaf
	held  map[string]bool
}

// window reconciles j in one session and keeps its leaf, or pushes its
// halves. end means the run ends now, with leaves.
func (r *splitRun) window(ctx context.Context, j negJob) (leaves []negLeaf, end bool, err error) {
	sp := r.sp
	fw := j.s.filter(r.f)
	res, err := sp.s.negWindow(ctx, sp.st, fw, j.items, sp.o, sp.log)
	if r.held == nil && err == nil {
		// Still the whole window: nothing was halved yet.
		r.whole = &negLeaf{f: fw, base: r.f, need: res.need}
	}
	if r.held != nil && slices.ContainsFunc(res.need, func(id string) bool { return r.held[id] }) {
		// The relay lists, in a part of the window, an id the store holds
		// in another part: it ignores since/until (or lies about
		// created_at), so halving cannot uncut its set. Its first answer
		// is taken whole, as before windows were split.
		sp.log.Warn("relay: NIP-77 answers ignore the created_at window; not splitting", "splits", sp.st.Splits)
		if r.whole == nil {
			err := errors.New("relay: NIP-77: the relay ignores the created_at window of a reconciliation")
			sp.st.NegError = err.Error()
			return nil, true, err
		}
		return []negLeaf{*r.whole}, true, nil
	}
	if errors.Is(err, ErrNegBudget) {
		return append(r.out, negLeaf{f: fw, base: r.f, need: res.need}), true, err
	}
	refusal := err // the relay's own words, for a "too many" NegError
	why, err := sp.cutWhy(res, err)
	switch {
	case err != nil:
		return nil, true, err
	case why == "too many" && j.s.narrow():
		sp.st.NegError = fmt.Sprintf("%v (%v; %d splits)", errTooManySmall, refusal, sp.st.Splits)
		sp.log.Warn("relay: NIP-77 says too many for a small window, paging instead", "splits", sp.st.Splits)
		return nil, true, errTooManySmall
	case why == "":
		r.out = append(r.out, negLeaf{f: fw, base: r.f, need: res.need})
	case !r.split(j):
		sp.st.Paged++
		sp.log.Debug("relay: NIP-77 window of one second cut, paging it", "second", j.s.until, "why", why)
		r.out = append(r.out, negLeaf{f: fw, base: r.f, page: true})
	}
	return nil, false, nil
}

// cutWhy says why a session's answer cannot be taken as the relay's
// whole set in its window ("" when it can), or returns the session's
// error if that is not a "too many" refusal.
func (sp *negSplitter) cutWhy(res negResult, err error) (string, error) {
	switch {
	case tooMany(err):
		return "too many", nil
	case err != nil:
		return "", err
	case looksCut(res.relaySize(), sp.maxLimit):
		// Learnt only from a set that left out stored events: a window
		// that merely holds max_limit events (20, say) must not make
		// every window of 20 stored events be halved unasked.
		if sp.cut == 0 && res.haves > 0 {
			sp.cut = res.relaySize()
		}
		return fmt.Sprintf("%d ids", res.relaySize()), nil
	}
	return "", nil
}

// split pushes j's halves; false when j is one second, which cannot be
// halved.
func (r *splitRun) split(j negJob) bool {
	lower, upper, ok := j.s.halves(j.items)
	if !ok {
		return false
	}
	r.sp.st.Splits++
	if r.held == nil {
		r.held = make(map[string]bool, len(r.items))
		for _, it := range r.items {
			r.held[it.ID] = true
		}
	}
	a, b := splitItems(j.items, lower.until)
	r.stack = append(r.stack, negJob{upper, b}, negJob{lower, a})
	return true
}

// splitItems are the items of the halves split at mid, in order. The
// upper half asks from the lower's last second (span.filter): its items
// are in both.
func splitItems(items []Item, mid int64) (lower, upper []Item) {
	i, _ := slices.BinarySearchFunc(items, mid+1, func(it Item, t int64) int { return cmp.Compare(it.CreatedAt, t) })
	j, _ := slices.BinarySearchFunc(items, mid, func(it Item, t int64) int { return cmp.Compare(it.CreatedAt, t) })
	return items[:i], items[j:]
}

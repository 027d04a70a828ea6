package relay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"

	gn "github.com/nbd-wtf/go-nostr"
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
const negSessionBudget = 1 << 16

// openSpan is the width given to a window open above when it is halved
// (events may be stamped in the future, so the top window stays open):
// 2^32 seconds reach past 2106 from the epoch.
const openSpan = int64(1) << 32

// errSplitBudget ends a reconciliation that used negSessionBudget.
var errSplitBudget = errors.New("relay: NIP-77: session budget used splitting capped windows")

// negLeaf is one window of a filter reconciled whole: the ids the relay
// has there and the store lacks, or, for a one-second window the relay
// would not reconcile whole, page set (its events are read by REQ).
type negLeaf struct {
	f    gn.Filter
	need []string
	page bool
}

// span is a created_at window with either end possibly open: an open end
// is left out of the filter, so no event of any created_at is outside
// the windows that together cover the line.
type span struct {
	since, until      int64 // inclusive, where not open
	openLow, openHigh bool
}

// asked is w with the second before it, as span.filter asks the relay:
// the local items of a window are read for the same seconds.
func (w SyncWindow) asked() SyncWindow {
	if w.Since > 1 {
		w.Since--
	}
	return w
}

func spanOf(w SyncWindow) span {
	return span{since: w.Since, until: w.Until, openLow: w.Since == 0, openHigh: w.Until == 0}
}

// filter is f bounded to the window and the second before it. Windows
// overlap by that second because eventstore's slicestore (v0.16.2) takes
// "since" as exclusive: asked for since T, it leaves out the events of T,
// which would then be in no window. A relay that reads since as NIP-01
// says lists that second twice, which costs nothing (the local side lists
// it too, and an event is sent once).
func (s span) filter(f gn.Filter) gn.Filter {
	if !s.openLow {
		t := gn.Timestamp(max(s.since-1, 0))
		f.Since = &t
	}
	if !s.openHigh {
		t := gn.Timestamp(s.until)
		f.Until = &t
	}
	return f
}

// halves splits s at the middle of its seconds; false when it is one
// second (or holds nothing a split could separate).
func (s span) halves() (lower, upper span, ok bool) {
	lo := max(s.since, 0)
	if s.openLow {
		lo = 0 // created_at is never negative (PROTOCOL.md section 1)
	}
	hi := s.until
	if s.openHigh {
		if lo > math.MaxInt64-openSpan {
			return s, s, false
		}
		hi = max(lo, openSpan-1)
		if hi == lo {
			hi = lo + openSpan
		}
	}
	if hi <= lo {
		return s, s, false
	}
	mid := lo + (hi-lo)/2
	lower = span{since: lo, until: mid, openLow: s.openLow}
	upper = span{since: mid + 1, until: s.until, openHigh: s.openHigh}
	return lower, upper, true
}

// capLike reports whether n ids look like a set cut at a cap the relay
// does not announce: operators set round figures (500, 1,000, 5,000) or
// powers of two. A whole set of such a size costs one needless split.
func capLike(n int) bool {
	return n >= 100 && (n%100 == 0 || n&(n-1) == 0)
}

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
	st       *SyncStats
	o        negOptions
	log      *slog.Logger
	maxLimit int // NIP-11 max_limit, 0 when not announced
	sessions int
}

// reconcile reconciles f within w against the relay and returns the
// windows it ended with. An error is recorded in st (NegError): the
// relay then gets the fallback.
func (sp *negSplitter) reconcile(ctx context.Context, f gn.Filter, w SyncWindow, items []SyncItem) ([]negLeaf, error) {
	type job struct {
		s     span
		items []SyncItem
	}
	// Depth first, lower half first: at most one pending job per level
	// of halving, so the stack stays under 64 entries.
	stack := []job{{spanOf(w), items}}
	var out []negLeaf
	for len(stack) > 0 {
		j := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		fw := j.s.filter(f)
		if sp.sessions <= 0 {
			sp.st.NegError = fmt.Sprintf("%v (%d splits)", errSplitBudget, sp.st.Splits)
			sp.log.Warn("relay: NIP-77 split too often, falling back", "splits", sp.st.Splits)
			return nil, errSplitBudget
		}
		sp.sessions--
		res, err := sp.s.negWindow(ctx, sp.st, fw, j.items, sp.o, sp.log)
		var why string
		switch {
		case tooMany(err):
			why = "too many"
		case err != nil:
			return nil, err
		case looksCut(res.relaySize(), sp.maxLimit):
			why = fmt.Sprintf("%d ids", res.relaySize())
		default:
			out = append(out, negLeaf{f: fw, need: res.need})
			continue
		}
		lower, upper, ok := j.s.halves()
		if !ok {
			sp.st.Paged++
			sp.log.Debug("relay: NIP-77 window of one second cut, paging it", "window", fmt.Sprint(fw.Since, fw.Until), "why", why)
			out = append(out, negLeaf{f: fw, page: true})
			continue
		}
		sp.st.Splits++
		// The upper half asks from the lower's last second (span.filter):
		// its items are in both.
		var a, b []SyncItem
		for _, it := range j.items {
			if it.CreatedAt <= lower.until {
				a = append(a, it)
			}
			if it.CreatedAt >= lower.until {
				b = append(b, it)
			}
		}
		stack = append(stack, job{upper, b}, job{lower, a})
	}
	return out, nil
}

package reconcile

import (
	"math"

	gn "github.com/nbd-wtf/go-nostr"
)

// openSpan is the width given to a window open above when it is halved
// (events may be stamped in the future, so the top window stays open):
// 2^32 seconds reach past 2106 from the epoch.
const openSpan = int64(1) << 32

// narrow reports a window narrower than tooManyFloor.
func (s span) narrow() bool {
	lo := s.since
	if s.openLow {
		lo = 0 // created_at is never negative
	}
	return !s.openHigh && s.until-lo < tooManyFloor
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
func (w Window) asked() Window {
	if w.Since > 1 {
		w.Since--
	}
	return w
}

// countFrom is how many items are stamped at since or later.
func countFrom(items []Item, since int64) int {
	if since <= 0 {
		return len(items) // an open window
	}
	n := 0
	for _, it := range items {
		if it.CreatedAt >= since {
			n++
		}
	}
	return n
}

func spanOf(w Window) span {
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

// halves splits s in two at mid when items (sorted by created_at) are
// many, so that each half holds about half of them, else at the middle
// of its seconds; false when s is one second (or holds nothing a split
// could separate).
func (s span) halves(items []Item) (lower, upper span, ok bool) {
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
	if len(items) >= 2 {
		mid = min(max(items[(len(items)-1)/2].CreatedAt, lo), hi-1)
	}
	lower = span{since: lo, until: mid, openLow: s.openLow}
	upper = span{since: mid + 1, until: s.until, openHigh: s.openHigh}
	return lower, upper, true
}

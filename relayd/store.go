package relayd

import (
	"context"
	"math"

	"github.com/fiatjaf/eventstore"
	gn "github.com/nbd-wtf/go-nostr"
)

// eventStore is what the relay keeps events in: eventstore's interface
// plus the two questions the fault-injection hooks ask.
type eventStore interface {
	eventstore.Store
	Has(ctx context.Context, id string) (bool, error)
	Len(ctx context.Context) (int, error)
}

// DefaultMaxLimit is the per-filter cap when Options.MaxLimit is zero; 500
// is what many public relays use.
const DefaultMaxLimit = 500

// effectiveLimit is how many events a stored-events query may return: the
// filter's limit capped at max, max when the filter has none, and zero for
// "limit":0, which asks for live events only.
func effectiveLimit(f gn.Filter, max int) int {
	if f.LimitZero {
		return 0
	}
	if f.Limit <= 0 || f.Limit > max {
		return max
	}
	return f.Limit
}

// queryLimit is effectiveLimit for a query khatru runs: a NIP-77 session
// (khatru marks its context) must see every event the filter matches, or
// the relay would reconcile only its newest max_limit events and a client
// would fetch nothing older.
func queryLimit(ctx context.Context, f gn.Filter, max int) int {
	if !f.LimitZero && eventstore.IsNegentropySession(ctx) {
		return math.MaxInt32
	}
	return effectiveLimit(f, max)
}

// before orders query results the NIP-01 way: newest first, and among
// events of the same second the lowest id first.
func before(a, b *gn.Event) bool {
	if a.CreatedAt != b.CreatedAt {
		return a.CreatedAt > b.CreatedAt
	}
	return a.ID < b.ID
}

// supersedes reports whether replaceable event a wins over b: newer, or the
// same second and the lower id (NIP-01).
func supersedes(a, b *gn.Event) bool { return before(a, b) }

// dTag is the value of an addressable event's first d tag.
func dTag(ev *gn.Event) string {
	for _, t := range ev.Tags {
		if len(t) >= 2 && t[0] == "d" {
			return t[1]
		}
	}
	return ""
}

// sameAddress reports whether two events replace one another.
func sameAddress(a, b *gn.Event) bool {
	if a.Kind != b.Kind || a.PubKey != b.PubKey {
		return false
	}
	if gn.IsAddressableKind(a.Kind) {
		return dTag(a) == dTag(b)
	}
	return true
}

// resultChan hands finished results to khatru on a channel that is already
// full and closed: khatru sometimes reads one event and walks away (its
// deletion check), and a sender blocked on it would leak.
func resultChan(evs []*gn.Event) chan *gn.Event {
	ch := make(chan *gn.Event, len(evs))
	for _, ev := range evs {
		ch <- ev
	}
	close(ch)
	return ch
}

package reconcile

import (
	"errors"
	"sync/atomic"
)

// Budget bounds what reconciling one relay may hold and cost in one Sync,
// over all its NIP-77 sessions: a relay answers NEG-MSG with whatever ids
// it likes, and each one it claims is kept until fetched. Zero fields take
// the defaults of the relay's kind (Options.Budget, Options.StrangerBudget).
type Budget struct {
	IDs   int   // ids the relay may claim that the store lacks
	Bytes int64 // NIP-77 messages, both ways
	// Pages and Events bound the REQs (pages of a query) and the events
	// they bring, fetching by id and in the fallback: a relay that serves
	// endless pages must not hold the sync, and the daemon's folding
	// behind it.
	Pages, Events int
}

// or is b with its zero fields taken from d.
func (b Budget) or(d Budget) Budget {
	if b.IDs <= 0 {
		b.IDs = d.IDs
	}
	if b.Bytes <= 0 {
		b.Bytes = d.Bytes
	}
	if b.Pages <= 0 {
		b.Pages = d.Pages
	}
	if b.Events <= 0 {
		b.Events = d.Events
	}
	return b
}

// Defaults of Options.Budget, Options.StrangerBudget, Options.TotalIDs and
// Options.MaxSessions. A configured relay may hold a history the store
// lacks (a fresh daemon): a million ids is about 130 MB, and what is past
// it comes with the next sync, once these are stored. A relay someone else
// named (a player's relay list) holds that player's games, not a history.
var (
	DefaultBudget         = Budget{IDs: 1_000_000, Bytes: 1 << 30, Pages: 20_000, Events: 2_000_000}
	DefaultStrangerBudget = Budget{IDs: 20_000, Bytes: 16 << 20, Pages: 100, Events: 20_000}
)

const (
	DefaultTotalIDs    = 2_000_000
	DefaultMaxSessions = 8
)

// ErrNegBudget ends a relay's reconciliation that used its Budget (or the
// share of Options.TotalIDs left): what it claimed up to there is fetched,
// and the rest is left to the next sync.
var ErrNegBudget = errors.New("relay: NIP-77 budget used")

// ErrPageBudget ends a relay's queries in a Sync that used its
// Budget.Pages or Budget.Events; the next sync goes on.
var ErrPageBudget = errors.New("relay: sync page budget used")

// relayBudget is what is left of one relay's Budget in this Sync, and of
// the ids all relays may hold together.
type relayBudget struct {
	ids, bytes    atomic.Int64
	pages, events atomic.Int64
	total         *atomic.Int64 // shared by every relay of the Sync
	taken         atomic.Int64  // ids taken from total, given back by release
	used          atomic.Bool
}

func newRelayBudget(b Budget, total *atomic.Int64) *relayBudget {
	rb := &relayBudget{total: total}
	rb.ids.Store(int64(b.IDs))
	rb.bytes.Store(b.Bytes)
	rb.pages.Store(int64(b.Pages))
	rb.events.Store(int64(b.Events))
	return rb
}

// takeID reserves room for one more id; false (and the budget used) when
// the relay's or the Sync's ids are spent.
func (b *relayBudget) takeID() bool {
	if b == nil {
		return true
	}
	if b.ids.Add(-1) < 0 {
		b.used.Store(true)
		return false
	}
	if b.total.Add(-1) < 0 {
		b.total.Add(1)
		b.used.Store(true)
		return false
	}
	b.taken.Add(1)
	return true
}

// takeBytes charges n bytes of NIP-77 messages; false once they are spent.
func (b *relayBudget) takeBytes(n int) bool {
	if b == nil {
		return true
	}
	if b.bytes.Add(-int64(n)) < 0 {
		b.used.Store(true)
		return false
	}
	return true
}

// spent reports that the relay has used its budget.
func (b *relayBudget) spent() bool { return b != nil && b.used.Load() }

// release gives the ids this relay held back to the Sync's total, once
// they are fetched or dropped.
func (b *relayBudget) release() { b.total.Add(b.taken.Swap(0)) }

// takeEvent charges one event a query brought; false once they are spent.
func (b *relayBudget) takeEvent() bool { return b.events.Add(-1) >= 0 }

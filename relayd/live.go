package relayd

import (
	"context"
	"sync"

	"github.com/fiatjaf/eventstore"
	"github.com/fiatjaf/khatru"
	gn "github.com/nbd-wtf/go-nostr"
)

// Live delivery is done here rather than by khatru: khatru v0.19.1 walks
// its listener slice without the lock its REQ and CLOSE handlers write it
// under, a data race that -race reports in any test with concurrent
// subscribers and publishers. So the store hook saves the event, delivers
// it to our own registry of subscriptions, and then tells khatru the event
// was a duplicate, which makes khatru answer OK true and skip its own
// broadcast. Subscriptions enter the registry through the OverwriteFilter
// hook (which khatru runs for every filter of every REQ, "limit":0
// included) and leave it when khatru cancels the REQ's context (on CLOSE, on
// a rejected filter, or when the connection ends).

type subKey struct {
	ws *khatru.WebSocket
	id string
}

type liveSub struct {
	ctx     context.Context // the REQ's context: a new one means a new REQ
	filters []gn.Filter
}

type registry struct {
	mu   sync.Mutex
	subs map[subKey]*liveSub
}

func newRegistry() *registry { return &registry{subs: make(map[subKey]*liveSub)} }

// add records one filter of a REQ; a REQ reusing a subscription id
// replaces the old one (NIP-01).
func (g *registry) add(ctx context.Context, f *gn.Filter) {
	ws := khatru.GetConnection(ctx)
	if ws == nil || eventstore.IsNegentropySession(ctx) {
		// A NIP-77 session runs this hook too, but it is no subscription:
		// its context lives as long as the connection, and it wants no
		// live events.
		return
	}
	// khatru puts the subscription id in every REQ's context.
	key := subKey{ws: ws, id: khatru.GetSubscriptionID(ctx)}
	g.mu.Lock()
	defer g.mu.Unlock()
	s := g.subs[key]
	if s == nil || s.ctx != ctx {
		s = &liveSub{ctx: ctx}
		g.subs[key] = s
		context.AfterFunc(ctx, func() {
			g.mu.Lock()
			if g.subs[key] == s {
				delete(g.subs, key)
			}
			g.mu.Unlock()
		})
	}
	s.filters = append(s.filters, *f)
}

// broadcast sends ev to every subscription it matches.
func (g *registry) broadcast(ev *gn.Event) {
	var targets []subKey
	g.mu.Lock()
	for key, s := range g.subs {
		for _, f := range s.filters {
			if f.Matches(ev) {
				targets = append(targets, key)
				break
			}
		}
	}
	g.mu.Unlock()
	for _, t := range targets {
		id := t.id
		t.ws.WriteJSON(gn.EventEnvelope{SubscriptionID: &id, Event: *ev})
	}
}

// countFor is the number of ws's live subscriptions.
func (g *registry) countFor(ws *khatru.WebSocket) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for key := range g.subs {
		if key.ws == ws {
			n++
		}
	}
	return n
}

// count is the number of live subscriptions.
func (g *registry) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.subs)
}

// storeEvent is khatru's StoreEvent hook: save, deliver, and report a
// duplicate so that khatru does not broadcast again.
func (r *Relay) storeEvent(ctx context.Context, ev *gn.Event) error {
	if err := r.store.SaveEvent(ctx, ev); err != nil {
		return err
	}
	r.live.broadcast(ev)
	return eventstore.ErrDupEvent
}

// replaceEvent is the same for replaceable and addressable kinds.
func (r *Relay) replaceEvent(ctx context.Context, ev *gn.Event) error {
	if err := r.store.ReplaceEvent(ctx, ev); err != nil {
		return err
	}
	r.live.broadcast(ev)
	return eventstore.ErrDupEvent
}

// Broadcast sends ev to the live subscriptions it matches without storing
// it: a relay that has passed an event on but not stored it (yet), so a
// client's live view and a fresh read of the relay disagree. Tests use it
// to show that only the read counts (play's final report).
func (r *Relay) Broadcast(ev *gn.Event) { r.live.broadcast(ev) }

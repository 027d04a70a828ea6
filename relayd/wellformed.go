package relayd

import (
	"context"
	"strings"
	"time"

	gn "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip40"

	"vesper/nostr"
)

// wellFormed refuses an event PROTOCOL.md section 1 calls malformed (an
// upper-case hex id, pubkey or signature, a negative created_at...):
// khatru only checks that the id hashes and the signature verifies, and
// both succeed for such an event, since hex decodes either case. Storing
// it would serve every client an event that verifiers drop. The event is
// written back in its canonical form and parsed by the strict parser, so
// the rule stays the one nostr.ParseEvent holds.
func wellFormed(ev *gn.Event) (bool, string) {
	if _, err := nostr.ParseEvent(nostr.MarshalEvent(ev)); err != nil {
		return true, "invalid: " + strings.TrimPrefix(err.Error(), "nostr: ")
	}
	return false, ""
}

// expired refuses an event whose NIP-40 expiration has passed: the relay
// lists NIP-40, and the NIP says such events are dropped, not stored.
func expired(ev *gn.Event, now time.Time) (bool, string) {
	if isExpired(ev, now) {
		return true, "invalid: event has expired (NIP-40 expiration tag in the past)"
	}
	return false, ""
}

func isExpired(ev *gn.Event, now time.Time) bool {
	exp := nip40.GetExpiration(ev.Tags)
	return exp >= 0 && int64(exp) <= now.Unix()
}

// queryUnexpired is the store's query without the events that have expired
// since they were stored (NIP-40: a relay does not serve them); khatru
// deletes them only once an hour. A page may then hold fewer events than
// its limit while older ones remain; no protocol event carries an
// expiration, so only other clients' events can make that happen.
func (r *Relay) queryUnexpired(ctx context.Context, f gn.Filter) (chan *gn.Event, error) {
	ch, err := r.store.QueryEvents(ctx, f)
	if err != nil || ch == nil {
		return ch, err
	}
	// Both stores answer with a filled, closed channel (resultChan), so
	// this reads no further than they already have.
	now := time.Now()
	var evs []*gn.Event
	for ev := range ch {
		if !isExpired(ev, now) {
			evs = append(evs, ev)
		}
	}
	return resultChan(evs), nil
}

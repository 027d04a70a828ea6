package sim

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	ws "github.com/coder/websocket"
	gn "github.com/nbd-wtf/go-nostr"

	"vesper/match"
	"vesper/nostr"
)

// GameFilters are what a verifier follows (PROTOCOL.md section 1):
// challenges by their topic tag, and every other match kind.
func GameFilters() []gn.Filter {
	var kinds []int
	for _, k := range nostr.GameKinds() {
		if nostr.IsMatchKind(k) {
			kinds = append(kinds, k)
		}
	}
	return []gn.Filter{
		{Kinds: []int{nostr.KindChallenge}, Tags: gn.TagMap{nostr.TopicTag: {nostr.GamesTopic}}},
		{Kinds: kinds},
	}
}

// FetchAll returns every game event the relays hold that passes the
// checks of section 1, once each, by created_at then id. It reads each
// relay with a client of its own (fetchRelay) and pages by itself, so that
// the reference does not depend on the relay client under test
// (nostr/relay).
func FetchAll(ctx context.Context, urls []string, timeout time.Duration) ([]*nostr.Event, error) {
	byID := map[string]*nostr.Event{}
	var errs []error
	for _, u := range urls {
		evs, err := fetchRelay(ctx, u, timeout)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", u, err))
		}
		for _, ev := range evs {
			byID[ev.ID] = ev
		}
	}
	out := make([]*nostr.Event, 0, len(byID))
	for _, ev := range byID {
		out = append(out, ev)
	}
	slices.SortFunc(out, func(a, b *nostr.Event) int {
		return cmp.Or(cmp.Compare(a.CreatedAt, b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return out, errors.Join(errs...)
}

// fetchPage is the limit of each query; relays may return fewer.
const fetchPage = 200

// fetchRelay pages backwards through one relay: each query asks for events
// no newer than the oldest second of the page before (inclusive, so that
// second is read again and its events already seen are skipped), until a
// query brings nothing. It never takes a short page for the last one: a
// relay may hold events that fail the checks, and those take room in a
// page without being kept.
//
// It speaks NIP-01 over a bare websocket rather than through go-nostr's
// Relay: that type races with itself under the race detector (in v0.52.3
// Close reads Relay.Connection while the connection's writer goroutine sets
// it to nil, relay.go:576 against relay.go:175), which failed every test
// that reached this reference under `go test -race`, whatever the test did.
func fetchRelay(ctx context.Context, url string, timeout time.Duration) ([]*nostr.Event, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, _, err := ws.Dial(ctx, url, nil)
	if err != nil {
		return nil, err
	}
	defer c.CloseNow()
	c.SetReadLimit(1 << 24)
	var out []*nostr.Event
	seen := map[string]bool{}
	queries := 0
	for _, f := range GameFilters() {
		var until *gn.Timestamp
		for {
			pf := f
			pf.Until, pf.Limit = until, fetchPage
			queries++
			page, err := query(ctx, c, fmt.Sprintf("ref%d", queries), pf)
			if err != nil {
				return out, err
			}
			if len(page) == 0 {
				break
			}
			fresh := 0
			oldest := page[0].CreatedAt
			for _, ev := range page {
				oldest = min(oldest, ev.CreatedAt)
				if seen[ev.ID] {
					continue
				}
				seen[ev.ID] = true
				fresh++
				if nostr.Verify(ev) == nil {
					out = append(out, ev)
				}
			}
			if fresh == 0 {
				// A whole page of one second already read: step past it.
				if until == nil || *until == 0 {
					break
				}
				oldest = *until - 1
			}
			until = &oldest
		}
	}
	return out, nil
}

// query sends one REQ on c and returns the events the relay sends for it
// before its EOSE, then closes the subscription.
func query(ctx context.Context, c *ws.Conn, sub string, f gn.Filter) ([]*nostr.Event, error) {
	if err := send(ctx, c, "REQ", sub, f); err != nil {
		return nil, err
	}
	var out []*nostr.Event
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return out, err
		}
		var msg []json.RawMessage
		if json.Unmarshal(b, &msg) != nil || len(msg) < 2 {
			continue // a NOTICE or AUTH says nothing about this query
		}
		var label, id string
		json.Unmarshal(msg[0], &label)
		json.Unmarshal(msg[1], &id)
		if id != sub {
			continue
		}
		switch label {
		case "EVENT":
			var ev nostr.Event
			if len(msg) > 2 && json.Unmarshal(msg[2], &ev) == nil {
				out = append(out, &ev)
			}
		case "EOSE":
			return out, send(ctx, c, "CLOSE", sub)
		case "CLOSED":
			return out, fmt.Errorf("the relay closed the query: %s", b)
		}
	}
}

func send(ctx context.Context, c *ws.Conn, msg ...any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	return c.Write(ctx, ws.MessageText, b)
}

// Reference folds every match the events hold. seenAt is when a verifier
// first received each event (missing: its created_at, as section 6 says).
// Challenges that make no valid match are left out.
func Reference(events []*nostr.Event, seenAt map[string]int64) map[string]*match.State {
	byMatch := map[string][]*nostr.Event{}
	for _, ev := range events {
		if ev.Kind == nostr.KindChallenge {
			byMatch[ev.ID] = append(byMatch[ev.ID], ev)
			continue
		}
		if !nostr.IsMatchKind(ev.Kind) {
			continue
		}
		for _, id := range nostr.MatchRefs(ev) {
			byMatch[id] = append(byMatch[id], ev)
		}
	}
	out := map[string]*match.State{}
	for id, evs := range byMatch {
		if s, err := match.Fold(id, evs, seenAt); err == nil {
			out[id] = s
		}
	}
	return out
}

package relay

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"vesper/nostr"
	"vesper/nostr/relay/internal/wire"
	"vesper/nostr/relay/limits"
)

// ErrNotConnected is the Err of a relay the client holds no connection to
// when it publishes: the relay is down or between reconnects. The caller
// (the daemon's outbox) retries later; by then the client's own reconnect
// loop has found the relay back, or not.
var ErrNotConnected = errors.New("relay: not connected")

// Publish sends ev to each relay of Config.Relays on the connection the
// client's Run keeps to it, in parallel, each relay within timeout [10s],
// and reports each relay's answer in the order of Config.Relays (relays
// added by Follow are read from, not written to). A
// relay that asks for NIP-42 AUTH gets it (with Config.Key) and the event
// is sent again; "duplicate:" counts as accepted; "rate-limited:" is
// waited out and retried within timeout; a relay whose NIP-11 document
// rules the write out is skipped (PublishResult.Skipped: restricted_writes
// or payment_required unless in Config.MayWrite, a created_at the relay's
// limits refuse, size, PoW, ...).
//
// Publish never dials: a relay without a live connection gets
// ErrNotConnected at once, and one whose connection is being made is
// waited for (within timeout), so a publication right after Run starts, or
// during a reconnect, does not fail for nothing. Dialing per publication is
// what the client replaces: a thousand rulings would open a thousand
// sockets per relay, and a relay that is down would be probed per item
// instead of by the reconnect loop's backoff. Before Run has tried a relay,
// Publish waits for it; after Run has returned, every relay is not
// connected.
func (c *Client) Publish(ctx context.Context, ev *nostr.Event, timeout time.Duration) []PublishResult {
	return c.publishAll(ctx, ev, c.configured, timeout)
}

func (c *Client) publishAll(ctx context.Context, ev *nostr.Event, relays []string, timeout time.Duration) []PublishResult {
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	results := make([]PublishResult, len(relays))
	var wg sync.WaitGroup
	for i, u := range relays {
		wg.Go(func() {
			rctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			results[i] = c.publishTo(rctx, u, ev, timeout)
		})
	}
	wg.Wait()
	return results
}

func (c *Client) publishTo(ctx context.Context, url string, ev *nostr.Event, timeout time.Duration) PublishResult {
	res := PublishResult{Relay: url}
	// The document is cached per relay (nostr/relay/limits), so this costs a fetch
	// per relay every few minutes, not one per item.
	doc := limits.Get(ctx, url, min(timeout, c.cfg.DialTimeout)).Doc
	if why := writeRefusal(doc, ev, c.cfg.Key, c.cfg.Now(), mayWrite(c.cfg.MayWrite, url)); why != "" {
		return skipped(res, why)
	}
	cn, err := c.live.wait(ctx, url)
	if err != nil {
		res.Err = err
		return res
	}
	return sendEvent(ctx, cn, ev, c.cfg.Key, c.cfg.Logger, res)
}

// liveConns is the connection each relay's session holds now, shared with
// publications. The zero value is ready to use.
type liveConns struct {
	mu sync.Mutex
	m  map[string]*liveSlot
}

type liveSlot struct {
	cn *wire.Conn
	// connecting: a session is fetching NIP-11 or dialing; a publication
	// waits for the outcome rather than failing.
	connecting bool
	// changed is closed, and replaced, at every change of the slot.
	changed chan struct{}
}

func (l *liveConns) slot(url string) *liveSlot {
	if l.m == nil {
		l.m = make(map[string]*liveSlot)
	}
	s := l.m[url]
	if s == nil {
		s = &liveSlot{changed: make(chan struct{})}
		l.m[url] = s
	}
	return s
}

// set records url's connection (nil: none) and whether one is being made.
func (l *liveConns) set(url string, cn *wire.Conn, connecting bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.slot(url)
	s.cn, s.connecting = cn, connecting
	close(s.changed)
	s.changed = make(chan struct{})
}

// wait returns url's live connection, waiting while one is being made.
func (l *liveConns) wait(ctx context.Context, url string) (*wire.Conn, error) {
	for {
		l.mu.Lock()
		s := l.slot(url)
		cn, connecting, changed := s.cn, s.connecting, s.changed
		l.mu.Unlock()
		switch {
		case cn != nil && cn.Ctx.Err() == nil:
			return cn, nil
		case !connecting:
			return nil, fmt.Errorf("%w to %s", ErrNotConnected, url)
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, fmt.Errorf("%w to %s: %w", ErrNotConnected, url, ctx.Err())
		}
	}
}

package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	gn "github.com/nbd-wtf/go-nostr"
)

// sub is one REQ. deliver runs on the dispatcher goroutine, so EOSE is
// signalled only after every stored event before it has been delivered.
type Sub struct {
	id        string
	filters   gn.Filters
	deliver   func(*gn.Event)
	eose      chan struct{}
	eoseOnce  sync.Once
	closed    chan string // CLOSED reason, at most one
	closeOnce sync.Once
}

func (c *Conn) lookup(id string) *Sub {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.subs[id]
}

func (c *Conn) forget(id string) {
	c.mu.Lock()
	delete(c.subs, id)
	c.mu.Unlock()
}

// subscribe sends a REQ; deliver receives every checked event for it.
func (c *Conn) Subscribe(filters gn.Filters, deliver func(*gn.Event)) (*Sub, error) {
	c.mu.Lock()
	c.nextSub++
	s := &Sub{
		id:      "vesper-" + strconv.Itoa(c.nextSub),
		filters: filters,
		deliver: deliver,
		eose:    make(chan struct{}),
		closed:  make(chan string, 1),
	}
	c.subs[s.id] = s
	c.mu.Unlock()
	req, err := gn.ReqEnvelope{SubscriptionID: s.id, Filters: filters}.MarshalJSON()
	if err == nil {
		err = c.Write(req)
	}
	if err != nil {
		c.forget(s.id)
		return nil, err
	}
	return s, nil
}

// unsubscribe sends CLOSE. Events the relay sends after it are ignored.
func (c *Conn) Unsubscribe(s *Sub) {
	c.forget(s.id)
	msg, _ := json.Marshal([]string{"CLOSE", s.id})
	c.Write(msg)
}

// waitEOSE waits for the end of stored events, at most timeout of the
// relay's time: the time the consumer kept the dispatcher waiting does not
// count (a slow store does not cut a page off), but events arriving do not
// extend it, so a relay that drips an event now and then and never sends
// EOSE cannot hold the caller for ever. A CLOSED comes back as a
// *ClosedError.
func (c *Conn) WaitEOSE(ctx context.Context, s *Sub, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	blocked0 := c.blocked.Load()
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case <-s.eose:
			return nil
		case reason := <-s.closed:
			return NewClosedError(c.URL, reason)
		case <-c.Ctx.Done():
			return c.Err()
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			left := time.Until(deadline.Add(time.Duration(c.blocked.Load() - blocked0)))
			if left <= 0 && !c.Delivering.Load() {
				return fmt.Errorf("relay: %s: %w after %v", c.URL, ErrNoEOSE, timeout)
			}
			t.Reset(max(left, 10*time.Millisecond))
		}
	}
}

// ErrNoEOSE is the error of a query the relay did not finish in time.
var ErrNoEOSE = errors.New("relay: no EOSE")

// ClosedError is a relay's CLOSED message for a subscription.
type ClosedError struct {
	Relay  string
	Reason string
}

func (e *ClosedError) Error() string {
	return fmt.Sprintf("relay: %s closed the subscription: %s", e.Relay, e.Reason)
}

// Is reads the reason's machine-readable prefix (ReasonPrefix):
// ErrAuthRequired, ErrRestricted or ErrRateLimited.
func (e *ClosedError) Is(target error) bool { return ReasonIs(e.Reason, target) }

func NewClosedError(url, reason string) error { return &ClosedError{Relay: url, Reason: reason} }

// Closed receives the relay's CLOSED reason for the subscription, at most
// one.
func (s *Sub) Closed() <-chan string { return s.closed }

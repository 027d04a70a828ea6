package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gn "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip42"

	"vesper/nostr"
)

// Reasons passed to Config.OnReject for events a relay sent that are never
// delivered.
const (
	RejectMalformed    = "malformed"     // not a well-formed event (PROTOCOL.md section 1)
	RejectBadID        = "bad_id"        // id is not the hash of the event
	RejectBadSignature = "bad_signature" // BIP-340 signature does not check
	RejectUnrequested  = "unrequested"   // matches none of the subscription's filters
)

// Errors a session or a publication can end with.
var (
	ErrAuthRequired = errors.New("relay: the relay requires NIP-42 AUTH")
	ErrRateLimited  = errors.New("relay: rate-limited by the relay")
	ErrClosed       = errors.New("relay: connection closed")
)

const writeTimeout = 10 * time.Second

// conn is one websocket to one relay, speaking NIP-01 itself on top of
// go-nostr's Connection so that every EVENT's raw bytes reach the strict
// parser (see doc.go). A single reader goroutine dispatches messages in the
// order they arrive.
type conn struct {
	url    string
	ws     *gn.Connection
	log    *slog.Logger
	reject func(reason string)
	// nrejected counts the events refused on this connection, so the pager
	// can tell a page shortened by refused events from the last page.
	nrejected atomic.Int64

	ctx       context.Context // done when the connection ends
	cancel    context.CancelCauseFunc
	closeOnce sync.Once
	wmu       sync.Mutex

	mu          sync.Mutex
	subs        map[string]*sub
	oks         map[string]chan okReply
	nextSub     int
	challenge   string
	challengeCh chan struct{} // closed when the first challenge arrives
	challengeOK sync.Once
	authed      bool

	// delivering is set while the reader goroutine waits for the consumer
	// to take an event; it cannot read a pong then.
	delivering atomic.Bool
}

type okReply struct {
	ok  bool
	msg string
}

// sub is one REQ. deliver runs on the reader goroutine, so EOSE is
// signalled only after every stored event before it has been delivered.
type sub struct {
	id        string
	filters   gn.Filters
	deliver   func(*gn.Event)
	eose      chan struct{}
	eoseOnce  sync.Once
	activity  chan struct{} // an event arrived: the EOSE wait restarts
	closed    chan string   // CLOSED reason, at most one
	closeOnce sync.Once
}

func dial(ctx context.Context, url string, log *slog.Logger, reject func(string)) (*conn, error) {
	ws, err := gn.NewConnection(ctx, url, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("relay: %s: %w", url, err)
	}
	cctx, cancel := context.WithCancelCause(context.Background())
	c := &conn{
		url:         url,
		ws:          ws,
		log:         log,
		reject:      reject,
		ctx:         cctx,
		cancel:      cancel,
		subs:        make(map[string]*sub),
		oks:         make(map[string]chan okReply),
		challengeCh: make(chan struct{}),
	}
	go c.readLoop()
	return c, nil
}

// close ends the connection; the first cause wins.
func (c *conn) close(cause error) {
	c.closeOnce.Do(func() {
		c.cancel(cause)
		c.ws.Close()
	})
}

// err is why the connection ended.
func (c *conn) err() error {
	if err := context.Cause(c.ctx); err != nil {
		return err
	}
	return ErrClosed
}

func (c *conn) readLoop() {
	var buf bytes.Buffer
	for {
		buf.Reset()
		if err := c.ws.ReadMessage(c.ctx, &buf); err != nil {
			c.close(fmt.Errorf("%w: %v", ErrClosed, err))
			return
		}
		c.handle(buf.Bytes())
	}
}

func (c *conn) handle(msg []byte) {
	var arr []json.RawMessage
	if err := json.Unmarshal(msg, &arr); err != nil || len(arr) == 0 {
		c.log.Debug("relay: unparseable message", "relay", c.url, "message", clip(msg))
		return
	}
	var label string
	if json.Unmarshal(arr[0], &label) != nil {
		return
	}
	str := func(i int) string {
		var s string
		if i < len(arr) {
			json.Unmarshal(arr[i], &s)
		}
		return s
	}
	switch label {
	case "EVENT":
		if len(arr) < 3 {
			return
		}
		c.handleEvent(str(1), arr[2])
	case "EOSE":
		if s := c.lookup(str(1)); s != nil {
			s.eoseOnce.Do(func() { close(s.eose) })
		}
	case "CLOSED":
		id := str(1)
		if s := c.lookup(id); s != nil {
			c.forget(id)
			s.closeOnce.Do(func() { s.closed <- str(2) })
		}
	case "OK":
		if len(arr) < 3 {
			return
		}
		var ok bool
		json.Unmarshal(arr[2], &ok)
		c.mu.Lock()
		ch := c.oks[str(1)]
		c.mu.Unlock()
		if ch != nil {
			select {
			case ch <- okReply{ok: ok, msg: str(3)}:
			default:
			}
		}
	case "AUTH":
		c.mu.Lock()
		c.challenge = str(1)
		c.mu.Unlock()
		c.challengeOK.Do(func() { close(c.challengeCh) })
	case "NOTICE":
		c.log.Info("relay: notice", "relay", c.url, "notice", str(1))
	}
}

// handleEvent is the gate of PROTOCOL.md section 1: the raw bytes are parsed
// strictly and the id and signature checked; oversized events still pass
// (the fold must see them to ignore them as too large).
func (c *conn) handleEvent(subID string, raw []byte) {
	s := c.lookup(subID)
	if s == nil {
		return // a subscription we have closed
	}
	ev, err := nostr.ParseEvent(raw)
	if err != nil {
		c.rejected(RejectMalformed, err)
		return
	}
	if err := nostr.Verify(ev); err != nil {
		reason := RejectBadSignature
		if !ev.CheckID() {
			reason = RejectBadID
		}
		c.rejected(reason, err)
		return
	}
	if !s.filters.Match(ev) {
		c.rejected(RejectUnrequested, fmt.Errorf("event %s kind %d", ev.ID, ev.Kind))
		return
	}
	c.delivering.Store(true)
	s.deliver(ev)
	c.delivering.Store(false)
	select {
	case s.activity <- struct{}{}:
	default:
	}
}

func (c *conn) rejected(reason string, err error) {
	c.nrejected.Add(1)
	c.log.Debug("relay: event rejected", "relay", c.url, "reason", reason, "err", err)
	if c.reject != nil {
		c.reject(reason)
	}
}

func (c *conn) lookup(id string) *sub {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.subs[id]
}

func (c *conn) forget(id string) {
	c.mu.Lock()
	delete(c.subs, id)
	c.mu.Unlock()
}

func (c *conn) write(msg []byte) error {
	ctx, cancel := context.WithTimeout(c.ctx, writeTimeout)
	defer cancel()
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := c.ws.WriteMessage(ctx, msg); err != nil {
		if c.ctx.Err() != nil {
			return c.err()
		}
		return fmt.Errorf("relay: %s: %w", c.url, err)
	}
	return nil
}

// subscribe sends a REQ; deliver receives every checked event for it.
func (c *conn) subscribe(filters gn.Filters, deliver func(*gn.Event)) (*sub, error) {
	c.mu.Lock()
	c.nextSub++
	s := &sub{
		id:       "vesper-" + strconv.Itoa(c.nextSub),
		filters:  filters,
		deliver:  deliver,
		eose:     make(chan struct{}),
		activity: make(chan struct{}, 1),
		closed:   make(chan string, 1),
	}
	c.subs[s.id] = s
	c.mu.Unlock()
	req, err := gn.ReqEnvelope{SubscriptionID: s.id, Filters: filters}.MarshalJSON()
	if err == nil {
		err = c.write(req)
	}
	if err != nil {
		c.forget(s.id)
		return nil, err
	}
	return s, nil
}

// unsubscribe sends CLOSE. Events the relay sends after it are ignored.
func (c *conn) unsubscribe(s *sub) {
	c.forget(s.id)
	msg, _ := json.Marshal([]string{"CLOSE", s.id})
	c.write(msg)
}

// waitEOSE waits for the end of stored events. timeout is of silence: each
// event restarts it, so a long answer (or a slow consumer) is not cut off.
// A CLOSED comes back as a *ClosedError.
func (c *conn) waitEOSE(ctx context.Context, s *sub, timeout time.Duration) error {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case <-s.eose:
			return nil
		case reason := <-s.closed:
			return closedError(c.url, reason)
		case <-c.ctx.Done():
			return c.err()
		case <-ctx.Done():
			return ctx.Err()
		case <-s.activity:
			t.Reset(timeout)
		case <-t.C:
			return fmt.Errorf("relay: %s: no EOSE after %v of silence", c.url, timeout)
		}
	}
}

// ClosedError is a relay's CLOSED message for a subscription.
type ClosedError struct {
	Relay  string
	Reason string
}

func (e *ClosedError) Error() string {
	return fmt.Sprintf("relay: %s closed the subscription: %s", e.Relay, e.Reason)
}

func (e *ClosedError) Is(target error) bool {
	switch target {
	case ErrAuthRequired:
		return strings.HasPrefix(e.Reason, "auth-required:")
	case ErrRateLimited:
		return strings.HasPrefix(e.Reason, "rate-limited:")
	}
	return false
}

func closedError(url, reason string) error { return &ClosedError{Relay: url, Reason: reason} }

// send writes an EVENT or AUTH envelope and waits for the relay's OK.
func (c *conn) send(ctx context.Context, label string, ev *gn.Event) (okReply, error) {
	ch := make(chan okReply, 1)
	c.mu.Lock()
	c.oks[ev.ID] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.oks, ev.ID)
		c.mu.Unlock()
	}()
	msg := append([]byte(`["`+label+`",`), nostr.MarshalEvent(ev)...)
	msg = append(msg, ']')
	if err := c.write(msg); err != nil {
		return okReply{}, err
	}
	select {
	case r := <-ch:
		return r, nil
	case <-c.ctx.Done():
		return okReply{}, c.err()
	case <-ctx.Done():
		return okReply{}, fmt.Errorf("relay: %s: no OK: %w", c.url, ctx.Err())
	}
}

// auth answers the relay's NIP-42 challenge with key, once per connection:
// a relay that still refuses after a successful AUTH is not asked again.
func (c *conn) auth(ctx context.Context, key nostr.SecretKey) error {
	if key.IsZero() {
		return ErrAuthRequired
	}
	c.mu.Lock()
	done := c.authed
	c.mu.Unlock()
	if done {
		return fmt.Errorf("%w (already authenticated as %s)", ErrAuthRequired, key.PublicKey())
	}
	select {
	case <-c.challengeCh:
	case <-ctx.Done():
		return fmt.Errorf("relay: %s: no AUTH challenge: %w", c.url, ctx.Err())
	case <-c.ctx.Done():
		return c.err()
	}
	c.mu.Lock()
	challenge := c.challenge
	c.mu.Unlock()
	ev := nip42.CreateUnsignedAuthEvent(challenge, key.PublicKey(), c.url)
	if err := key.Sign(&ev); err != nil {
		return err
	}
	r, err := c.send(ctx, "AUTH", &ev)
	if err != nil {
		return err
	}
	if !r.ok {
		return fmt.Errorf("relay: %s refused AUTH: %s", c.url, r.msg)
	}
	c.mu.Lock()
	c.authed = true
	c.mu.Unlock()
	c.log.Debug("relay: authenticated", "relay", c.url, "pubkey", key.PublicKey())
	return nil
}

// ping checks that the relay still answers; coder/websocket needs the
// reader goroutine running for the pong, which it always is.
func (c *conn) ping(ctx context.Context) error {
	if err := c.ws.Ping(ctx); err != nil {
		return fmt.Errorf("relay: %s: ping: %w", c.url, err)
	}
	return nil
}

func clip(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}

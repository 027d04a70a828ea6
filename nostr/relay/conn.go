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
	"vesper/nostr/batch"
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
// parser (see doc.go). A reader goroutine reads frames and a dispatcher
// goroutine handles them in the order they arrived.
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

	// delivering is set while the dispatcher waits for the consumer to
	// take an event; once the frames queued behind it fill up, the reader
	// cannot read a pong.
	delivering atomic.Bool
}

type okReply struct {
	ok  bool
	msg string
}

// sub is one REQ. deliver runs on the dispatcher goroutine, so EOSE is
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

// readLoop reads frames and hands them, in order, to the dispatcher. The
// two are apart so that frames that arrive while the dispatcher checks or
// delivers (a backfill page) queue up, and the dispatcher then checks the
// signatures of a whole run of events at once (nostr/batch), several times
// cheaper than one by one.
func (c *conn) readLoop() {
	frames := make(chan []byte, maxRun)
	go c.dispatch(frames)
	defer close(frames)
	for {
		var buf bytes.Buffer
		if err := c.ws.ReadMessage(c.ctx, &buf); err != nil {
			c.close(fmt.Errorf("%w: %v", ErrClosed, err))
			return
		}
		select {
		case frames <- buf.Bytes():
		case <-c.ctx.Done():
			return
		}
	}
}

// maxRun bounds the events checked in one batch.
const maxRun = 512

// dispatch handles frames in arrival order: each run of EVENT frames already
// waiting is checked as one batch, then delivered in order, before the next
// other message (an EOSE must follow the events before it).
func (c *conn) dispatch(frames <-chan []byte) {
	var run []envelope
	flush := func() {
		c.handleEvents(run)
		run = run[:0]
	}
	for msg := range frames {
		pending := [][]byte{msg}
	more:
		for len(pending) < maxRun {
			select {
			case m, ok := <-frames:
				if !ok {
					break more
				}
				pending = append(pending, m)
			default:
				break more
			}
		}
		for _, m := range pending {
			env, ok := c.envelope(m)
			if !ok {
				continue
			}
			if env.label == "EVENT" {
				if len(env.arr) >= 3 {
					run = append(run, env)
				}
				continue
			}
			flush()
			c.handle(env)
		}
		flush()
	}
}

// envelope is one relay message split into its label and elements.
type envelope struct {
	label string
	arr   []json.RawMessage
}

func (c *conn) envelope(msg []byte) (envelope, bool) {
	var arr []json.RawMessage
	if err := json.Unmarshal(msg, &arr); err != nil || len(arr) == 0 {
		c.log.Debug("relay: unparseable message", "relay", c.url, "message", clip(msg))
		return envelope{}, false
	}
	var label string
	if json.Unmarshal(arr[0], &label) != nil {
		return envelope{}, false
	}
	return envelope{label: label, arr: arr}, true
}

// str is element i of a message as a string, "" if it is not one.
func (e envelope) str(i int) string {
	var s string
	if i < len(e.arr) {
		json.Unmarshal(e.arr[i], &s)
	}
	return s
}

func (c *conn) handle(env envelope) {
	arr, label, str := env.arr, env.label, env.str
	switch label {
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

// handleEvents is the gate of PROTOCOL.md section 1 for a run of EVENT
// messages: the raw bytes are parsed strictly and the ids and signatures
// checked (the signatures together); oversized events still pass (the fold
// must see them to ignore them as too large). Then each is delivered, in
// order.
func (c *conn) handleEvents(run []envelope) {
	if len(run) == 0 {
		return
	}
	evs := make([]*gn.Event, len(run))
	subs := make([]*sub, len(run))
	for i, env := range run {
		if subs[i] = c.lookup(env.str(1)); subs[i] == nil {
			continue // a subscription we have closed
		}
		ev, err := nostr.ParseEvent(env.arr[2])
		if err != nil {
			c.rejected(RejectMalformed, err)
			continue
		}
		evs[i] = ev
	}
	sigOK := batch.Events(evs) // false for the nil ones
	for i, ev := range evs {
		s := subs[i]
		if ev == nil {
			continue
		}
		switch {
		case !ev.CheckID():
			c.rejected(RejectBadID, &nostr.CheckError{ID: ev.ID, Reason: "id is not the hash of the event"})
			continue
		case !sigOK[i]:
			c.rejected(RejectBadSignature, &nostr.CheckError{ID: ev.ID, Reason: "bad signature"})
			continue
		case !s.filters.Match(ev):
			c.rejected(RejectUnrequested, fmt.Errorf("event %s kind %d", ev.ID, ev.Kind))
			continue
		}
		c.delivering.Store(true)
		s.deliver(ev)
		c.delivering.Store(false)
		select {
		case s.activity <- struct{}{}:
		default:
		}
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

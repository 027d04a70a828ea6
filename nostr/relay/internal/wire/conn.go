package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	ws "github.com/coder/websocket"
	gn "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip42"

	"vesper/internal/netguard"
	"vesper/nostr"
	"vesper/nostr/batch"
)

// Reasons passed to relay.Config.OnReject for events a relay sent that are never
// delivered.
const (
	RejectMalformed    = "malformed"     // not a well-formed event (PROTOCOL.md section 1)
	RejectBadID        = "bad_id"        // id is not the hash of the event
	RejectBadSignature = "bad_signature" // BIP-340 signature does not check
	RejectUnrequested  = "unrequested"   // matches none of the subscription's filters
	RejectOversized    = "oversized"     // a message over relay.Config.MaxMessageSize, dropped unread
)

// Errors a session or a publication can end with.
var (
	ErrAuthRequired = errors.New("relay: the relay requires NIP-42 AUTH")
	// ErrAuthNoKey is ErrAuthRequired when there is no key to answer with.
	ErrAuthNoKey   = fmt.Errorf("%w, and no key is configured to authenticate with", ErrAuthRequired)
	ErrRateLimited = errors.New("relay: rate-limited by the relay")
	ErrClosed      = errors.New("relay: connection closed")
)

const WriteTimeout = 10 * time.Second

// Conn is one websocket to one relay, speaking NIP-01 itself on top of
// go-nostr's Connection so that every EVENT's raw bytes reach the strict
// parser (see doc.go). A reader goroutine reads frames and a dispatcher
// goroutine handles them in the order they arrived.
type Conn struct {
	URL    string
	ws     *ws.Conn
	Log    *slog.Logger
	reject func(reason string)
	lim    Limits
	// notices limits how much relay-supplied text reaches the log.
	notices *TextLimiter
	// queued is the bytes of frames read but not yet handled; the reader
	// waits while it is over lim.QueueBytes, so a relay that sends faster
	// than the consumer takes holds the memory of one bounded queue, not of
	// every frame it sent.
	qmu    sync.Mutex
	queued int
	space  chan struct{} // signalled when queued shrinks
	// blocked is the nanoseconds the dispatcher has spent waiting for the
	// consumer to take an event: the EOSE wait does not count them against
	// the relay.
	blocked atomic.Int64
	// Rejected counts the events refused on this connection, so the Pager
	// can tell a page shortened by refused events from the last page.
	Rejected atomic.Int64

	Ctx       context.Context // done when the connection ends
	cancel    context.CancelCauseFunc
	closeOnce sync.Once
	wmu       sync.Mutex

	mu          sync.Mutex
	subs        map[string]*Sub
	oks         map[string]chan OKReply
	nextSub     int
	challenge   string
	challengeCh chan struct{} // closed when the first challenge arrives
	challengeOK sync.Once
	authed      bool
	// authMu makes AUTH one at a time: the session and publications share
	// the connection, and two AUTH events signed in the same second for
	// the same challenge have the same id, so their OKs could not be told
	// apart.
	authMu sync.Mutex

	// delivering is set while the dispatcher waits for the consumer to
	// take an event; once the frames queued behind it fill up, the reader
	// cannot read a pong.
	Delivering atomic.Bool
	// dispatched is closed when the dispatcher has returned: after it, no
	// deliver func of this connection runs again.
	dispatched chan struct{}
	// neg, when set (negFrames), receives the NIP-77 messages and the
	// NOTICEs, in order, for a reconciliation on this connection.
	neg chan []byte
}

type OKReply struct {
	OK  bool
	Msg string
}

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

// Limits bound what one connection may make us hold.
type Limits struct {
	MaxMessage int64 // largest websocket message kept; a larger one is read through and dropped
	MaxFrame   int64 // largest read through; a larger one ends the connection
	QueueBytes int   // frames read and not yet handled, in bytes
	// Guard, when set, is the address policy of the dial: the relay was
	// named by someone other than the operator (internal/netguard).
	Guard *netguard.Policy
}

// Defaults of relay.Config.MaxMessageSize and relay.Config.QueueBytes.
const (
	// DefaultMaxMessageSize admits the largest event the protocol counts
	// (65536 bytes canonical, PROTOCOL.md section 1) with its id, signature
	// and envelope, even from a relay that escapes every non-ASCII character
	// as \uXXXX (up to three times longer): 4 x 64 KiB. go-nostr reads up to
	// 32 MiB, which lets a relay make us allocate that per frame.
	DefaultMaxMessageSize = 256 << 10
	// DefaultMaxFrameSize: a message over MaxMessageSize is read through
	// without being kept (so that one oversized event on an honest relay
	// does not make every backfill of its page end in a disconnect), up to
	// this size; a larger one ends the connection.
	DefaultMaxFrameSize = 16 << 20
	// DefaultQueueBytes is the read-ahead per connection: thousands of
	// ordinary events (a backfill page, checked in one batch), a few dozen
	// of the largest.
	DefaultQueueBytes = 4 << 20
)

func (l Limits) withDefaults() Limits {
	if l.MaxMessage <= 0 {
		l.MaxMessage = DefaultMaxMessageSize
	}
	if l.QueueBytes <= 0 {
		l.QueueBytes = DefaultQueueBytes
	}
	if l.MaxFrame <= 0 {
		l.MaxFrame = DefaultMaxFrameSize
	}
	l.MaxFrame = max(l.MaxFrame, l.MaxMessage)
	return l
}

// Dial connects within lim (the defaults if none is given; more than one
// is a mistake and only the first counts).
func Dial(ctx context.Context, url string, log *slog.Logger, reject func(string), lims ...Limits) (*Conn, error) {
	var lim Limits
	if len(lims) > 0 {
		lim = lims[0]
	}
	lim = lim.withDefaults()
	// No permessage-deflate: a compressed frame can inflate a thousandfold,
	// so the bytes on the wire would no longer bound what we allocate.
	// Game events are small; compression saves little.
	wsc, resp, err := ws.Dial(ctx, url, &ws.DialOptions{CompressionMode: ws.CompressionDisabled, HTTPClient: HTTPClient(lim.Guard)})
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("relay: %s: %w", url, err)
	}
	wsc.SetReadLimit(lim.MaxFrame)
	cctx, cancel := context.WithCancelCause(context.Background())
	c := &Conn{
		URL:         url,
		ws:          wsc,
		Log:         log,
		reject:      reject,
		lim:         lim,
		notices:     NewTextLimiter(),
		space:       make(chan struct{}, 1),
		dispatched:  make(chan struct{}),
		Ctx:         cctx,
		cancel:      cancel,
		subs:        make(map[string]*Sub),
		oks:         make(map[string]chan OKReply),
		challengeCh: make(chan struct{}),
	}
	go c.readLoop()
	return c, nil
}

// close ends the connection; the first cause wins.
func (c *Conn) Close(cause error) {
	c.closeOnce.Do(func() {
		c.cancel(cause)
		// CloseNow: the close handshake would wait on a peer that may be
		// the reason we are closing.
		c.ws.CloseNow()
	})
}

// closeWait closes the connection and waits until its dispatcher has
// returned, so that no event of it is delivered after.
func (c *Conn) CloseWait(cause error) {
	c.Close(cause)
	<-c.dispatched
}

// err is why the connection ended.
func (c *Conn) Err() error {
	if err := context.Cause(c.Ctx); err != nil {
		return err
	}
	return ErrClosed
}

// readLoop reads frames and hands them, in order, to the dispatcher. The
// two are apart so that frames that arrive while the dispatcher checks or
// delivers (a backfill page) queue up, and the dispatcher then checks the
// signatures of a whole run of events at once (nostr/batch), several times
// cheaper than one by one.
func (c *Conn) readLoop() {
	frames := make(chan []byte, maxRun)
	go c.dispatch(frames)
	defer close(frames)
	for {
		msg, err := c.readMessage()
		if err != nil {
			switch {
			case strings.Contains(err.Error(), "read limited at"):
				err = fmt.Errorf("a message over %d bytes", c.lim.MaxFrame)
			case ws.CloseStatus(err) == ws.StatusMessageTooBig:
				// The relay's close frame: a message of ours was over its
				// limit (strfry's maxWebsocketPayloadSize), not one of its
				// over ours.
				err = fmt.Errorf("the relay closed the connection: a message we sent was too big for it (%v)", err)
			}
			c.Close(fmt.Errorf("%w: %v", ErrClosed, err))
			return
		}
		if msg == nil {
			continue // oversized, dropped
		}
		if !c.reserve(len(msg)) {
			return
		}
		select {
		case frames <- msg:
		case <-c.Ctx.Done():
			return
		}
	}
}

// readMessage reads the next message, keeping at most lim.MaxMessage bytes
// of it: a longer one is read through and dropped (nil, counted as
// RejectOversized), so it costs bandwidth, never memory.
func (c *Conn) readMessage() ([]byte, error) {
	_, r, err := c.ws.Reader(c.Ctx)
	if err != nil {
		return nil, err
	}
	msg, err := io.ReadAll(io.LimitReader(r, c.lim.MaxMessage+1))
	if err != nil {
		return nil, err
	}
	if int64(len(msg)) <= c.lim.MaxMessage {
		return msg, nil
	}
	n, err := io.Copy(io.Discard, r)
	if err != nil {
		return nil, err
	}
	c.rejected(RejectOversized, fmt.Errorf("a message of %d bytes, over %d", int64(len(msg))+n, c.lim.MaxMessage))
	return nil, nil
}

// reserve waits until n more bytes fit in the queue (one frame always
// fits in an empty queue). It reports false when the connection ended.
func (c *Conn) reserve(n int) bool {
	for {
		c.qmu.Lock()
		if c.queued == 0 || c.queued+n <= c.lim.QueueBytes {
			c.queued += n
			c.qmu.Unlock()
			return true
		}
		c.qmu.Unlock()
		select {
		case <-c.space:
		case <-c.Ctx.Done():
			return false
		}
	}
}

// release gives back the bytes of handled frames.
func (c *Conn) release(n int) {
	c.qmu.Lock()
	c.queued -= n
	c.qmu.Unlock()
	select {
	case c.space <- struct{}{}:
	default:
	}
}

// maxRun bounds the events checked in one batch.
const maxRun = 512

// dispatch handles frames in arrival order: each run of EVENT frames already
// waiting is checked as one batch, then delivered in order, before the next
// other message (an EOSE must follow the events before it).
func (c *Conn) dispatch(frames <-chan []byte) {
	defer close(c.dispatched)
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
		size := 0
		for _, m := range pending {
			size += len(m)
			if c.Ctx.Err() != nil {
				// Closed: what is left is not delivered, so that a session
				// that has ended hears nothing more from its connection
				// (nothing delivered is behind a saved cursor either way:
				// the next backfill asks again).
				continue
			}
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
		c.release(size)
	}
}

// envelope is one relay message split into its label and elements.
type envelope struct {
	label string
	arr   []json.RawMessage
	raw   []byte // the whole message
}

// envelope splits a relay message, which must be a JSON array with a
// string first. The event in an EVENT is not checked here: its bytes go
// through one parser, nostr.ParseEvent in handleEvents, which refuses them
// if they are not JSON. Everything else is checked here, so that a message
// handled is valid JSON, as encoding/json would have it.
func (c *Conn) envelope(msg []byte) (envelope, bool) {
	arr, ok := nostr.SplitArray(msg)
	ok = ok && len(arr) > 0
	var label string
	if ok {
		label, ok = unquote(arr[0])
	}
	if !ok || !restValid(label, arr, msg) {
		c.Log.Debug("relay: unparseable message", "relay", c.URL, "message", Clip(string(msg)))
		return envelope{}, false
	}
	return envelope{label: label, arr: arr, raw: msg}, true
}

// restValid checks what neither unquote (the label) nor ParseEvent (an
// EVENT's event) does: the other elements of an EVENT, and the whole of any
// other message, which is small and never an event's bytes.
func restValid(label string, arr []json.RawMessage, msg []byte) bool {
	if label != "EVENT" || len(arr) < 3 {
		return json.Valid(msg)
	}
	for i, e := range arr {
		if i != 0 && i != 2 && !json.Valid(e) {
			return false
		}
	}
	return true
}

// str is element i of a message as a string, "" if it is not one.
func (e envelope) str(i int) string {
	var s string
	if i < len(e.arr) {
		s, _ = unquote(e.arr[i])
	}
	return s
}

// unquote decodes a JSON string. Printable ASCII without escapes, which
// every label and every subscription id of ours is, is its own value and
// skips encoding/json.
func unquote(lit []byte) (string, bool) {
	if n := len(lit); n >= 2 && lit[0] == '"' && lit[n-1] == '"' {
		body := lit[1 : n-1]
		plain := true
		for _, ch := range body {
			if ch < 0x20 || ch > 0x7e || ch == '"' || ch == '\\' {
				plain = false
				break
			}
		}
		if plain {
			return string(body), true
		}
	}
	var s string
	if json.Unmarshal(lit, &s) != nil {
		return "", false
	}
	return s, true
}

func (c *Conn) handle(env envelope) {
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
			s.closeOnce.Do(func() { s.closed <- Clip(str(2)) })
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
			case ch <- OKReply{OK: ok, Msg: Clip(str(3))}:
			default:
			}
		}
	case "AUTH":
		c.mu.Lock()
		c.challenge = str(1)
		c.mu.Unlock()
		c.challengeOK.Do(func() { close(c.challengeCh) })
	case "NOTICE":
		// A relay chooses how many notices it sends and how long they are:
		// both are bounded before they reach the log (and its disk).
		if ok, dropped := c.notices.allow(c.now()); ok {
			if dropped > 0 {
				c.Log.Info("relay: notice", "relay", c.URL, "notice", Clip(str(1)), "suppressed_before", dropped)
			} else {
				c.Log.Info("relay: notice", "relay", c.URL, "notice", Clip(str(1)))
			}
		}
		c.toNeg(env.raw) // a relay without NIP-77 answers NEG-OPEN with one
	case "NEG-MSG", "NEG-ERR", "NEG-ERROR":
		c.toNeg(env.raw)
	}
}

// negFrames hands the connection's NIP-77 messages and NOTICEs to the
// caller, in order, from now on: a reconciliation reads them while AUTH
// and its OK stay with the connection, so a NIP-77 session authenticates
// through the same auth as a REQ. The dispatcher waits while negQueue of
// them are untaken (a few stray ones may come while the caller waits for
// an AUTH's OK), until the connection ends.
func (c *Conn) NegFrames() <-chan []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.neg == nil {
		c.neg = make(chan []byte, negQueue)
	}
	return c.neg
}

// negQueue is how many NIP-77 messages wait for the reconciliation: an
// honest relay sends one per message of ours, so a stray one or two while
// an AUTH is answered fit; each may be negReadLimit bytes, held outside
// the connection's queue.
const negQueue = 2

func (c *Conn) toNeg(msg []byte) {
	c.mu.Lock()
	ch := c.neg
	c.mu.Unlock()
	if ch == nil {
		return
	}
	select {
	case ch <- msg:
	case <-c.Ctx.Done():
	}
}

// handleEvents is the gate of PROTOCOL.md section 1 for a run of EVENT
// messages: the raw bytes are parsed strictly and the ids and signatures
// checked (the signatures together); oversized events still pass (the fold
// must see them to ignore them as too large). Then each is delivered, in
// order.
func (c *Conn) handleEvents(run []envelope) {
	if len(run) == 0 {
		return
	}
	evs := make([]*gn.Event, len(run))
	subs := make([]*Sub, len(run))
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
		c.Delivering.Store(true)
		t0 := time.Now()
		s.deliver(ev)
		c.blocked.Add(int64(time.Since(t0)))
		c.Delivering.Store(false)
	}
}

func (c *Conn) rejected(reason string, err error) {
	c.Rejected.Add(1)
	c.Log.Debug("relay: event rejected", "relay", c.URL, "reason", reason, "err", err)
	if c.reject != nil {
		c.reject(reason)
	}
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

func (c *Conn) Write(msg []byte) error {
	ctx, cancel := context.WithTimeout(c.Ctx, WriteTimeout)
	defer cancel()
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := c.ws.Write(ctx, ws.MessageText, msg); err != nil {
		if c.Ctx.Err() != nil {
			return c.Err()
		}
		return fmt.Errorf("relay: %s: %w", c.URL, err)
	}
	return nil
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

// send writes an EVENT or AUTH envelope and waits for the relay's OK.
func (c *Conn) Send(ctx context.Context, label string, ev *gn.Event) (OKReply, error) {
	ch := make(chan OKReply, 1)
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
	if err := c.Write(msg); err != nil {
		return OKReply{}, err
	}
	select {
	case r := <-ch:
		return r, nil
	case <-c.Ctx.Done():
		return OKReply{}, c.Err()
	case <-ctx.Done():
		return OKReply{}, fmt.Errorf("relay: %s: no OK: %w", c.URL, ctx.Err())
	}
}

// auth answers the relay's NIP-42 challenge with key, once per connection:
// a relay that still refuses after a successful AUTH is not asked again.
func (c *Conn) Auth(ctx context.Context, key nostr.SecretKey) error {
	if key.IsZero() {
		return ErrAuthNoKey
	}
	c.authMu.Lock()
	defer c.authMu.Unlock()
	c.mu.Lock()
	done := c.authed
	c.mu.Unlock()
	if done {
		return fmt.Errorf("%w (already authenticated as %s)", ErrAuthRequired, key.PublicKey())
	}
	select {
	case <-c.challengeCh:
	case <-ctx.Done():
		return fmt.Errorf("relay: %s: no AUTH challenge: %w", c.URL, ctx.Err())
	case <-c.Ctx.Done():
		return c.Err()
	}
	c.mu.Lock()
	challenge := c.challenge
	c.mu.Unlock()
	ev := nip42.CreateUnsignedAuthEvent(challenge, key.PublicKey(), c.URL)
	if err := key.Sign(&ev); err != nil {
		return err
	}
	r, err := c.Send(ctx, "AUTH", &ev)
	if err != nil {
		return err
	}
	if !r.OK {
		return fmt.Errorf("relay: %s refused AUTH: %s", c.URL, r.Msg)
	}
	c.mu.Lock()
	c.authed = true
	c.mu.Unlock()
	c.Log.Debug("relay: authenticated", "relay", c.URL, "pubkey", key.PublicKey())
	return nil
}

// retryAfterAuth is what every read on c does with a refusal, REQ and
// NEG-OPEN alike: when err is the relay's "auth-required:" (in whatever
// form ReasonPrefix reads) and this read has not authenticated yet
// (*tried), it answers the challenge with key and reports true: the read
// is sent again, once. Otherwise err comes back, joined with why AUTH
// failed (ErrAuthNoKey without a key).
func (c *Conn) RetryAfterAuth(ctx context.Context, key nostr.SecretKey, err error, tried *bool) (bool, error) {
	if *tried || !errors.Is(err, ErrAuthRequired) {
		return false, err
	}
	*tried = true
	if aerr := c.Auth(ctx, key); aerr != nil {
		return false, fmt.Errorf("%w (%w)", err, aerr)
	}
	return true, nil
}

// authFirst authenticates before the first read or write on a relay whose
// NIP-11 document says auth_required, instead of having the first query
// and publication refused and sent again. A challenge the relay sent at
// connect is answered at once; otherwise the relay is asked for a filter
// that matches nothing, which an auth-required relay refuses with
// "auth-required:" and a challenge (khatru sends its challenge only then).
// A relay that serves the probe without a challenge is left alone: it is
// still answered if a later query or write asks. The error is the
// connection's or the AUTH's; callers go on unless the connection died.
func (c *Conn) AuthFirst(ctx context.Context, key nostr.SecretKey, timeout time.Duration) error {
	if key.IsZero() || c.IsAuthed() {
		return nil
	}
	select {
	case <-c.challengeCh:
	default:
		s, err := c.Subscribe(gn.Filters{{IDs: []string{NoEvent}, Limit: 1}}, func(*gn.Event) {})
		if err != nil {
			return err
		}
		err = c.WaitEOSE(ctx, s, timeout)
		c.Unsubscribe(s)
		if c.Ctx.Err() != nil {
			return c.Err()
		}
		select {
		case <-c.challengeCh:
		default:
			if !errors.Is(err, ErrAuthRequired) {
				return err // served, or refused for another reason: nothing to answer
			}
			// The challenge may come just behind the CLOSED that asks
			// for it.
			t := time.NewTimer(timeout)
			defer t.Stop()
			select {
			case <-c.challengeCh:
			case <-t.C:
				return err
			case <-c.Ctx.Done():
				return c.Err()
			}
		}
	}
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return c.Auth(actx, key)
}

// isAuthed reports whether an AUTH on this connection has succeeded.
func (c *Conn) IsAuthed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.authed
}

// ping checks that the relay still answers; coder/websocket needs the
// reader goroutine running for the pong, which it always is.
func (c *Conn) Ping(ctx context.Context) error {
	if err := c.ws.Ping(ctx); err != nil {
		return fmt.Errorf("relay: %s: ping: %w", c.URL, err)
	}
	return nil
}

// now is the dispatcher's clock for rate limits.
func (c *Conn) now() time.Time { return time.Now() }

// MaxRelayText is how much of a relay-supplied string (NOTICE, CLOSED and
// OK reasons) is kept: enough for any honest reason.
const MaxRelayText = 200

// Clip bounds relay-supplied text, cutting at a character boundary.
func Clip(s string) string {
	if len(s) <= MaxRelayText {
		return s
	}
	cut := MaxRelayText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// TextLimiter is a token bucket for log lines a relay can trigger at will:
// a burst of NoticeBurst, then one per noticeEvery. What it refuses is
// counted and reported with the next line it lets through.
type TextLimiter struct {
	mu      sync.Mutex
	tokens  float64
	last    time.Time
	dropped int
}

const (
	NoticeBurst = 10
	noticeEvery = 6 * time.Second
)

func NewTextLimiter() *TextLimiter { return &TextLimiter{tokens: NoticeBurst} }

// allow reports whether a line may be logged at now, and how many were
// refused since the last one allowed.
func (l *TextLimiter) allow(now time.Time) (ok bool, dropped int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.last.IsZero() {
		l.tokens = min(NoticeBurst, l.tokens+float64(now.Sub(l.last))/float64(noticeEvery))
	}
	l.last = now
	if l.tokens < 1 {
		l.dropped++
		return false, 0
	}
	l.tokens--
	dropped, l.dropped = l.dropped, 0
	return true, dropped
}

// NoEvent is the probe's filter: an id no event has (an event with it
// would be a sha256 preimage of zero).
var NoEvent = strings.Repeat("0", 64)

// Closed receives the relay's CLOSED reason for the subscription, at most
// one.
func (s *Sub) Closed() <-chan string { return s.closed }

// Queued is the bytes of frames read and not yet handled.
func (c *Conn) Queued() int {
	c.qmu.Lock()
	defer c.qmu.Unlock()
	return c.queued
}

package wire

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	ws "github.com/coder/websocket"
	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/netguard"
	"vesper/nostr"
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

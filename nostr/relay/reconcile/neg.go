package reconcile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	ws "github.com/coder/websocket"
	gn "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip77"
	"github.com/nbd-wtf/go-nostr/nip77/negentropy"
	"github.com/nbd-wtf/go-nostr/nip77/negentropy/storage/vector"

	"vesper/internal/netguard"
	"vesper/internal/pause"
	"vesper/nostr"
	"vesper/nostr/relay/internal/wire"
	"vesper/nostr/relay/limits"
)

// ErrNegUnsupported means the relay does not speak NIP-77: it answered
// NEG-OPEN with a NOTICE (khatru without negentropy says "failed to parse
// envelope"), or not at all within the probe timeout.
var ErrNegUnsupported = errors.New("relay: the relay does not support NIP-77 negentropy")

// NegError is a relay's NEG-ERR for a reconciliation (NIP-77 spells it
// NEG-ERR; khatru v0.19.1 sends NEG-ERROR, and both are read).
type NegError struct {
	Relay  string
	Reason string
}

func (e *NegError) Error() string {
	return fmt.Sprintf("relay: %s refused the reconciliation: %s", e.Relay, e.Reason)
}

// Is reads the reason's machine-readable prefix as relay.ClosedError.Is does.
func (e *NegError) Is(target error) bool { return wire.ReasonIs(e.Reason, target) }

// Item is one stored event as reconciliation sees it: NIP-77 orders
// and fingerprints (created_at, id) pairs.
type Item struct {
	ID        string
	CreatedAt int64
}

// negFrameLimit bounds each message we send in a reconciliation (bytes of
// the binary message; the hex on the wire is twice that): khatru reads at
// most 512,000 bytes per websocket message by default.
const negFrameLimit = 100_000

// negReadLimit bounds a relay's NIP-77 message: khatru answers with frames
// of up to 1 MB (2 MB of hex).
const negReadLimit = 4 << 20

// negOptions bound one reconciliation against a relay that may lie.
type negOptions struct {
	maxRounds int           // NEG-MSG exchanges before giving up
	first     time.Duration // wait for the first answer (short when the relay did not list NIP 77)
	silence   time.Duration // wait for each later answer
	dial      time.Duration // websocket handshake
	// pause is waited before the first NEG-MSG, on a retry after the relay
	// lost the session (see negRetries).
	pause time.Duration
	// key answers NIP-42 AUTH, as on the REQs (zero: none).
	key nostr.SecretKey
	// budget is what is left of the relay's Budget (nil: unbounded).
	budget *relayBudget
	// guard is the dial policy of a relay someone else named (nil: as
	// written).
	guard *netguard.Policy
}

// negResult is what a reconciliation learnt.
type negResult struct {
	need   []string // ids the relay has and the local set lacks, lowercase hex, each once
	rounds int
	bytes  int64 // websocket payload bytes sent and received
	// local is the ids reconciled from our side and haves those of them
	// the relay lacks: with need they give the size of the relay's set,
	// which tells a set the relay cut at its cap (split.go).
	local, haves int
}

// relaySize is how many ids the relay reconciled: those both sides hold
// and those only it holds.
func (r negResult) relaySize() int { return r.local - r.haves + len(r.need) }

// negReconcile runs one NIP-77 session for filter f on its own
// connection, comparing the local items with the relay's, and returns the
// ids the relay holds that local lacks. It never fetches the events (the
// caller does, through the strict parser). The connection authenticates as
// a REQ's does: first when the relay's NIP-11 document says
// auth_required, and when NEG-OPEN is refused "auth-required:" (strfry
// and khatru send their challenge with that refusal), after which the
// session is opened again.
func negReconcile(ctx context.Context, url string, f gn.Filter, local []Item, o negOptions) (res negResult, err error) {
	wsc, err := negDial(ctx, url, o)
	if err != nil {
		return res, err
	}
	defer wsc.cn.Close(wire.ErrClosed)
	authTried := false
	for {
		r, err := negSession(ctx, wsc, url, f, local, o)
		res.need, res.rounds, res.bytes = r.need, res.rounds+r.rounds, res.bytes+r.bytes
		res.local, res.haves = r.local, r.haves
		if err == nil {
			return res, nil
		}
		actx, cancel := context.WithTimeout(ctx, o.silence)
		retry, err := wsc.cn.RetryAfterAuth(actx, o.key, err, &authTried)
		cancel()
		if !retry {
			return res, err
		}
		for len(wsc.frames) > 0 {
			<-wsc.frames // the refused session's: the new one must not read them
		}
	}
}

// negDial connects for a reconciliation, within o.dial, and authenticates
// first where the relay's NIP-11 document asks, as sync's REQ connection
// does.
func negDial(ctx context.Context, url string, o negOptions) (negConn, error) {
	info := limits.GetVia(ctx, url, o.dial, o.guard)
	dctx, cancel := context.WithTimeout(ctx, o.dial)
	// A read limit: the relay's frames are then bounded on the wire
	// (khatru's own answers stay under 2 MB of hex); the dial never
	// negotiates compression.
	cn, err := wire.Dial(dctx, url, slog.New(slog.DiscardHandler), nil, wire.Limits{MaxMessage: negReadLimit, MaxFrame: negReadLimit, Guard: o.guard})
	cancel()
	if err != nil {
		return negConn{}, err
	}
	stop := context.AfterFunc(ctx, func() { cn.Close(context.Cause(ctx)) })
	go func() {
		<-cn.Ctx.Done()
		stop()
	}()
	if info.AuthRequired() {
		if err := cn.AuthFirst(ctx, o.key, o.silence); err != nil && cn.Ctx.Err() != nil {
			return negConn{}, err
		}
	}
	return negConn{cn: cn, frames: cn.NegFrames(), frame: negFrame(info)}, nil
}

// negFrame is the frame limit of our reconciliation messages to a relay:
// negFrameLimit, or less where the relay's NIP-11 max_message_length
// would not take a NEG-MSG that large (hex doubles it). strfry announces
// and enforces 131,072 bytes and drops the connection of a client that
// sends more.
func negFrame(info limits.Info) int {
	d := info.Doc
	if d == nil || d.Limitation == nil || d.Limitation.MaxMessageLength <= 0 {
		return negFrameLimit
	}
	// The envelope, the subscription id and the filter of a NEG-OPEN fit
	// in negEnvelope; negentropy's floor is 4096.
	return max(4096, min(negFrameLimit, (d.Limitation.MaxMessageLength-negEnvelope)/2))
}

// negEnvelope is room for what surrounds the hex in a NEG-OPEN or NEG-MSG.
const negEnvelope = 2048

// negConn is a connection as a reconciliation reads and writes it: the
// NIP-77 messages and NOTICEs its dispatcher hands over, in order, while
// AUTH and OK stay with the connection.
type negConn struct {
	cn     *wire.Conn
	frames <-chan []byte
	frame  int // negentropy's frame limit for this relay (negFrame)
}

// Read is the next NIP-77 message or NOTICE.
func (n negConn) Read(ctx context.Context) (ws.MessageType, []byte, error) {
	select {
	case msg := <-n.frames:
		return ws.MessageText, msg, nil
	case <-n.cn.Ctx.Done():
		return 0, nil, n.cn.Err()
	case <-ctx.Done():
		return 0, nil, ctx.Err()
	}
}

// Write sends msg within the connection's write timeout; ctx ending
// closes the connection (negDial), which ends the write too.
func (n negConn) Write(_ context.Context, _ ws.MessageType, msg []byte) error {
	return n.cn.Write(msg)
}

// negSubID names our reconciliation on a connection: one at a time.
const negSubID = "vesper-neg"

// negSession is one NEG-OPEN and the exchange after it on wsc. A
// relay that never converges is cut off after maxRounds messages or by
// ctx; a malformed NEG-MSG ends the session with an error instead of
// reaching the negentropy decoder, whose allocations trust the counts in
// the message.
func negSession(ctx context.Context, wsc negConn, url string, f gn.Filter, local []Item, o negOptions) (negResult, error) {
	vec := localVector(local)
	r := &negRun{ctx: ctx, wsc: wsc, url: url, o: o, neg: negentropy.New(vec, wsc.frame)}
	r.res.local = vec.Size()
	r.ids = collectIDs(r.neg, o.budget)
	err := r.exchange(f)
	if r.opened && !r.finished {
		r.sendClose()
	}
	r.res.bytes = r.nbytes.Load()
	r.ids.end(r.finished)
	if errors.Is(err, ErrNegBudget) {
		// What the relay claimed within the budget is fetched; the rest
		// waits for the next sync.
		r.res.need, r.res.haves = r.ids.result()
	}
	return r.res, err
}

// localVector is the local set as negentropy takes it.
func localVector(local []Item) *vector.Vector {
	vec := vector.New()
	for _, it := range local {
		// vector.Insert panics on anything but 64 characters.
		if nostr.IsLowerHex(it.ID, 64) {
			vec.Insert(gn.Timestamp(it.CreatedAt), it.ID)
		}
	}
	vec.Seal()
	return vec
}

// negRun is one session's state: what it has sent and learnt.
type negRun struct {
	ctx    context.Context
	wsc    negConn
	url    string
	o      negOptions
	neg    *negentropy.Negentropy
	ids    *negIDs
	nbytes atomic.Int64
	res    negResult
	// opened: NEG-OPEN went out, so the relay holds a session to close;
	// answered: the relay sent a NEG-MSG (it speaks NIP-77); finished:
	// negentropy is done and the session closed.
	opened, answered, finished bool
}

// exchange opens the session and answers the relay's NEG-MSGs until
// negentropy has nothing more to ask.
func (r *negRun) exchange(f gn.Filter) error {
	open, err := nip77.OpenEnvelope{SubscriptionID: negSubID, Filter: f, Message: r.neg.Start()}.MarshalJSON()
	if err != nil {
		return fmt.Errorf("relay: NEG-OPEN: %w", err)
	}
	if err := r.write(open); err != nil {
		return fmt.Errorf("relay: %s: NEG-OPEN: %w", r.url, err)
	}
	r.opened = true
	for {
		msg, err := r.nextMessage()
		if err != nil {
			return err
		}
		if done, err := r.step(msg); err != nil || done {
			return err
		}
	}
}

func (r *negRun) write(msg []byte) error {
	r.nbytes.Add(int64(len(msg)))
	if !r.o.budget.takeBytes(len(msg)) {
		return ErrNegBudget
	}
	wctx, cancel := context.WithTimeout(r.ctx, wire.WriteTimeout)
	defer cancel()
	return r.wsc.Write(wctx, ws.MessageText, msg)
}

func (r *negRun) sendClose() {
	cl, _ := nip77.CloseEnvelope{SubscriptionID: negSubID}.MarshalJSON()
	_ = r.write(cl)
}

// nextMessage reads until the session's next NEG-MSG and returns its
// payload. A NOTICE before any answer means no NIP-77 (khatru without
// negentropy), as does silence past o.first; a NEG-ERR ends the session.
// Other messages (EVENT, OK, AUTH...) are nothing of this session.
func (r *negRun) nextMessage() (string, error) {
	for {
		wait := r.o.silence
		if !r.answered {
			wait = r.o.first
		}
		before := r.nbytes.Load()
		label, arr, err := readFrame(r.ctx, r.wsc, wait, &r.nbytes)
		if !r.o.budget.takeBytes(int(r.nbytes.Load() - before)) {
			return "", ErrNegBudget
		}
		if err != nil {
			if !r.answered && errors.Is(err, context.DeadlineExceeded) && r.ctx.Err() == nil {
				return "", fmt.Errorf("%w (no answer to NEG-OPEN in %v)", ErrNegUnsupported, wait)
			}
			return "", fmt.Errorf("relay: %s: reconciliation: %w", r.url, err)
		}
		switch label {
		case "NOTICE":
			if !r.answered {
				return "", fmt.Errorf("%w (%s)", ErrNegUnsupported, wire.Clip(arrString(arr, 1)))
			}
		case "NEG-ERR", "NEG-ERROR":
			if arrString(arr, 1) == negSubID {
				return "", &NegError{Relay: r.url, Reason: arrString(arr, 2)}
			}
		case "NEG-MSG":
			if arrString(arr, 1) == negSubID {
				r.answered = true
				return arrString(arr, 2), nil
			}
		}
	}
}

// step answers one NEG-MSG; done when negentropy has nothing more to ask.
func (r *negRun) step(msg string) (done bool, err error) {
	r.res.rounds++
	if r.res.rounds > r.o.maxRounds {
		return false, fmt.Errorf("relay: %s: reconciliation did not converge in %d rounds", r.url, r.o.maxRounds)
	}
	if err := checkNegMessage(msg); err != nil {
		return false, fmt.Errorf("relay: %s: malformed NEG-MSG: %w", r.url, err)
	}
	reply, err := reconcile(r.neg, msg)
	if err != nil {
		return false, fmt.Errorf("relay: %s: reconciliation: %w", r.url, err)
	}
	if r.o.budget.spent() {
		return false, ErrNegBudget
	}
	if reply == "" {
		r.finish()
		return true, nil
	}
	if r.res.rounds == 1 && r.o.pause > 0 {
		if !pause.For(r.ctx, r.o.pause) {
			return false, r.ctx.Err()
		}
	}
	m, _ := nip77.MessageEnvelope{SubscriptionID: negSubID, Message: reply}.MarshalJSON()
	if err := r.write(m); err != nil {
		return false, fmt.Errorf("relay: %s: NEG-MSG: %w", r.url, err)
	}
	return false, nil
}

// finish ends a converged session: negentropy has closed its channels,
// and the drains end once they have taken everything.
func (r *negRun) finish() {
	r.finished = true
	r.ids.wg.Wait()
	r.sendClose()
	r.res.need, r.res.haves = r.ids.result()
}

// readFrame reads one relay message within wait and splits its label.
func readFrame(ctx context.Context, wsc negConn, wait time.Duration, n *atomic.Int64) (string, []json.RawMessage, error) {
	rctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	_, msg, err := wsc.Read(rctx)
	if err != nil {
		if rctx.Err() != nil {
			return "", nil, rctx.Err()
		}
		return "", nil, err
	}
	n.Add(int64(len(msg)))
	var arr []json.RawMessage
	if json.Unmarshal(msg, &arr) != nil || len(arr) == 0 {
		return "", nil, nil // not a relay message: skipped like any unknown label
	}
	var label string
	json.Unmarshal(arr[0], &label)
	return label, arr, nil
}

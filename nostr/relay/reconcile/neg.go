package reconcile

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
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

// arrString is element i of a relay message as a string ("" if it is
// missing or not one).
func arrString(arr []json.RawMessage, i int) string {
	var s string
	if i < len(arr) {
		json.Unmarshal(arr[i], &s)
	}
	return s
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

// negIDs takes the ids negentropy reports as it reconciles: those the
// relay has and the local set lacks (need, each once) and those only the
// local set has (counted). Reconcile sends on its channels as it goes, so
// they are drained while it runs; negentropy closes both when it is done.
type negIDs struct {
	budget *relayBudget // each id kept in need takes one of its ids
	mu     sync.Mutex
	need   []string
	seen   map[string]bool
	had    map[string]bool
	wg     sync.WaitGroup
	stop   chan struct{}
}

func collectIDs(neg *negentropy.Negentropy, b *relayBudget) *negIDs {
	c := &negIDs{budget: b, seen: map[string]bool{}, had: map[string]bool{}, stop: make(chan struct{})}
	c.wg.Go(func() { c.drain(neg.HaveNots, true) })
	c.wg.Go(func() { c.drain(neg.Haves, false) })
	return c
}

func (c *negIDs) drain(ch <-chan string, need bool) {
	for {
		select {
		case id, ok := <-ch:
			if !ok {
				return
			}
			c.add(strings.ToLower(id), need)
		case <-c.stop:
			return
		}
	}
}

func (c *negIDs) add(id string, need bool) {
	if !nostr.IsLowerHex(id, 64) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case need && !c.seen[id]:
		if !c.budget.takeID() {
			return // over budget: dropped, and the session ends
		}
		c.seen[id] = true
		c.need = append(c.need, id)
	case !need:
		c.had[id] = true
	}
}

// end stops the drains of a session that did not finish (negentropy
// then never closes its channels) and waits for them.
func (c *negIDs) end(finished bool) {
	if !finished {
		close(c.stop)
	}
	c.wg.Wait()
}

func (c *negIDs) result() (need []string, haves int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.need, len(c.had)
}

// reconcile is neg.Reconcile with a panic turned into an error: the
// decoder slices by lengths the relay chose, and checkNegMessage is a
// guard, not a proof.
func reconcile(neg *negentropy.Negentropy, msg string) (out string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("malformed NEG-MSG (%v)", r)
		}
	}()
	return neg.Reconcile(msg)
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

// checkNegMessage walks a negentropy v1 message (NIP-77: a version byte,
// then ranges of upper bound, mode and payload) and refuses one whose
// lengths and counts do not fit in it, before the decoder allocates by
// them.
func checkNegMessage(msg string) error {
	b, err := hex.DecodeString(msg)
	if err != nil {
		return fmt.Errorf("not hex: %w", err)
	}
	if len(b) == 0 {
		return errors.New("empty")
	}
	if b[0] != 0x61 {
		return fmt.Errorf("protocol version %#x, want 0x61", b[0])
	}
	r := &negReader{b: b, pos: 1}
	for r.pos < len(b) {
		if err := r.skipRange(); err != nil {
			return err
		}
	}
	return nil
}

// negReader walks the bytes of a negentropy message.
type negReader struct {
	b   []byte
	pos int
}

func (r *negReader) varint() (int, error) {
	v := 0
	for i := 0; ; i++ {
		if r.pos >= len(r.b) {
			return 0, errors.New("truncated varint")
		}
		if i == 8 {
			return 0, errors.New("varint too long")
		}
		c := r.b[r.pos]
		r.pos++
		v = v<<7 | int(c&0x7f)
		if c&0x80 == 0 {
			return v, nil
		}
	}
}

// skipRange reads one range: its upper bound (a timestamp delta and an id
// prefix), its mode and its payload, each checked to fit in what is left.
func (r *negReader) skipRange() error {
	if _, err := r.varint(); err != nil { // timestamp delta
		return err
	}
	n, err := r.varint() // id prefix length
	if err != nil {
		return err
	}
	if n > 32 || r.pos+n > len(r.b) {
		return fmt.Errorf("bound prefix of %d bytes", n)
	}
	r.pos += n
	mode, err := r.varint()
	if err != nil {
		return err
	}
	switch mode {
	case 0: // skip
	case 1: // fingerprint
		if r.pos+negentropy.FingerprintSize > len(r.b) {
			return errors.New("truncated fingerprint")
		}
		r.pos += negentropy.FingerprintSize
	case 2: // id list
		count, err := r.varint()
		if err != nil {
			return err
		}
		if count > (len(r.b)-r.pos)/32 {
			return fmt.Errorf("id list of %d ids in %d bytes", count, len(r.b)-r.pos)
		}
		r.pos += count * 32
	default:
		return fmt.Errorf("unknown mode %d", mode)
	}
	return nil
}

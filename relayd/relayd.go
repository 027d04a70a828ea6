package relayd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fiatjaf/eventstore"
	"github.com/fiatjaf/khatru"
	gn "github.com/nbd-wtf/go-nostr"
)

// Options configure a relay. The zero value is an in-memory relay on a
// random loopback port.
type Options struct {
	// Listen is host:port; "" means 127.0.0.1:0 (a free port).
	Listen string
	// DBPath is an SQLite file; "" keeps events in memory.
	DBPath string
	// MaxLimit caps the events one filter returns (0 means DefaultMaxLimit).
	// A small cap makes clients page with "until".
	MaxLimit int
	// HideLimits leaves max_limit out of the NIP-11 document, so a client
	// has to discover the cap by paging.
	HideLimits bool
	// RejectWrites, when not empty, refuses every EVENT with this OK
	// message ("blocked: ..." is added when it has no prefix). It can be
	// changed later with SetRejectWrites.
	RejectWrites string
	// RestrictedWrites sets restricted_writes in the NIP-11 document; it is
	// independent of RejectWrites, so a relay can refuse without saying so
	// or say so without refusing.
	RestrictedWrites bool
	// RequireAuth makes stored-event queries (REQ, NEG-OPEN) and writes
	// need NIP-42 AUTH, sends the challenge as soon as a client connects,
	// and lists 42 in the NIP-11 document (changeable with SetRequireAuth;
	// connections open at the change get the challenge on refusal).
	RequireAuth bool
	// DuplicateNotOK answers an event the relay already has with
	// OK false "duplicate: ...", as some relays do; khatru's own answer is
	// OK true.
	DuplicateNotOK bool
	// NoNegentropy turns NIP-77 off: the relay then neither lists 77 in its
	// NIP-11 document nor understands NEG-OPEN (it answers a NOTICE), as
	// most public relays do, so a client has to fall back to REQs.
	NoNegentropy bool
	// RefuseNegentropy, when not empty, answers every NEG-OPEN with a
	// NEG-ERR of this reason (as a relay that finds a filter too broad
	// would), while REQs are served as usual.
	RefuseNegentropy string
	// MaxFilters, when set, is announced as limitation.max_filters and
	// enforced: a REQ with more filters gets CLOSED "blocked: ..." (nip11.go).
	MaxFilters int
	// MaxSubscriptions is announced as limitation.max_subscriptions and
	// enforced as Limits.MaxSubscriptions is, when that is not set.
	MaxSubscriptions int
	// CreatedAtLowerLimit and CreatedAtUpperLimit, when set, are announced
	// in the NIP-11 document and enforced: an event stamped more than
	// CreatedAtLowerLimit seconds in the past, or more than
	// CreatedAtUpperLimit seconds in the future, is refused with
	// "invalid: ...".
	CreatedAtLowerLimit int64
	CreatedAtUpperLimit int64
	// Limits bound each client (limits.go); the zero value adds none.
	Limits Limits
	// Name goes into the NIP-11 document.
	Name string
	// Logger receives khatru's log lines; nil discards them.
	Logger *slog.Logger
}

// Relay is a running relay.
type Relay struct {
	opts  Options
	kh    *khatru.Relay
	store eventStore
	live  *registry
	addr  string // resolved host:port, kept for Restart

	rejectWrites atomic.Pointer[string]
	requireAuth  atomic.Bool
	queries      atomic.Int64
	writes       atomic.Int64
	traffic      traffic

	filters        filterCounter
	filterRefusals atomic.Int64
	guard          *guard

	wsMu       sync.Mutex
	websockets map[*khatru.WebSocket]struct{}

	mu      sync.Mutex
	srv     *http.Server
	ln      *trackingListener
	serving sync.WaitGroup
	closed  bool
	done    chan struct{} // closed by Close
}

// Start opens the store, listens and serves until Close or until ctx is done.
func Start(ctx context.Context, opts Options) (*Relay, error) {
	if opts.Listen == "" {
		opts.Listen = "127.0.0.1:0"
	}
	if opts.MaxLimit <= 0 {
		opts.MaxLimit = DefaultMaxLimit
	}
	var store eventStore
	if opts.DBPath == "" {
		store = newMemStore(opts.MaxLimit, opts.Limits.MemoryStoreBytes)
	} else {
		s, err := openSQLiteStore(opts.DBPath, opts.MaxLimit)
		if err != nil {
			return nil, err
		}
		store = s
	}
	r := &Relay{opts: opts, store: store, live: newRegistry(),
		websockets: make(map[*khatru.WebSocket]struct{}), done: make(chan struct{})}
	reason := opts.RejectWrites
	r.rejectWrites.Store(&reason)
	r.requireAuth.Store(opts.RequireAuth)
	if opts.Limits.MaxSubscriptions <= 0 {
		opts.Limits.MaxSubscriptions = opts.MaxSubscriptions
	}
	r.guard = newGuard(opts.Limits, !opts.NoNegentropy, r.Count, r.live.countFor)
	r.kh = r.newKhatru()

	ln, err := net.Listen("tcp", opts.Listen)
	if err != nil {
		store.Close()
		return nil, fmt.Errorf("relayd: listen %s: %w", opts.Listen, err)
	}
	r.addr = ln.Addr().String()
	r.serve(ln)
	go r.guard.runReaper(r.done)
	go func() {
		select {
		case <-ctx.Done():
			r.Close()
		case <-r.done:
		}
	}()
	return r, nil
}

func (r *Relay) newKhatru() *khatru.Relay {
	kh := khatru.NewRelay()
	kh.Log = log.New(io.Discard, "", 0)
	if r.opts.Logger != nil {
		kh.Log = slog.NewLogLogger(r.opts.Logger.Handler(), slog.LevelDebug)
	}
	kh.Info.Name = r.opts.Name
	kh.Info.Software = SoftwareURL
	kh.Info.Version = SoftwareVersion
	kh.Negentropy = !r.opts.NoNegentropy
	kh.StoreEvent = append(kh.StoreEvent, r.storeEvent)
	kh.QueryEvents = append(kh.QueryEvents, r.queryUnexpired)
	kh.DeleteEvent = append(kh.DeleteEvent, r.store.DeleteEvent)
	kh.ReplaceEvent = append(kh.ReplaceEvent, r.replaceEvent)
	kh.OverwriteFilter = append(kh.OverwriteFilter, r.countFilter, r.live.add)
	kh.RejectEvent = append(kh.RejectEvent, r.rejectEvent)
	kh.RejectFilter = append(kh.RejectFilter, r.rejectFilter)
	// khatru calls OnDisconnect once from each of its two goroutines per
	// connection, so connections are counted as a set.
	kh.OnConnect = append(kh.OnConnect, func(ctx context.Context) {
		r.wsMu.Lock()
		r.websockets[khatru.GetConnection(ctx)] = struct{}{}
		r.wsMu.Unlock()
		r.guard.link(khatru.GetConnection(ctx))
		// NIP-42: a relay that requires AUTH says so first, so a client
		// can authenticate before its first REQ instead of after a refusal.
		if r.requireAuth.Load() {
			khatru.RequestAuth(ctx)
		}
	})
	kh.OnDisconnect = append(kh.OnDisconnect, func(ctx context.Context) {
		r.wsMu.Lock()
		delete(r.websockets, khatru.GetConnection(ctx))
		r.wsMu.Unlock()
	})
	kh.OverwriteRelayInformation = append(kh.OverwriteRelayInformation, r.nip11)
	r.applyLimits(kh)
	return kh
}

// internalKey marks the context of Publish, which bypasses the policy hooks.
type internalKey struct{}

func (r *Relay) rejectEvent(ctx context.Context, ev *gn.Event) (bool, string) {
	if ctx.Value(internalKey{}) != nil {
		return false, ""
	}
	r.writes.Add(1)
	if gn.IsEphemeralKind(ev.Kind) {
		// khatru would broadcast these itself, racing (see live.go)
		return true, "blocked: ephemeral events are not relayed here"
	}
	if r.requireAuth.Load() && khatru.GetAuthed(ctx) == "" {
		return true, "auth-required: this relay only accepts events from authenticated clients"
	}
	if reason := *r.rejectWrites.Load(); reason != "" {
		return true, reason
	}
	if reject, reason := wellFormed(ev); reject {
		return true, reason
	}
	if reject, reason := expired(ev, time.Now()); reject {
		return true, reason
	}
	if reject, reason := r.checkCreatedAt(ev); reject {
		return true, reason
	}
	if ms, ok := r.store.(*memStore); ok && ms.full(ev) {
		return true, errStoreFull.Error()
	}
	if r.opts.DuplicateNotOK {
		if has, err := r.store.Has(ctx, ev.ID); err == nil && has {
			return true, "duplicate: already have this event"
		}
	}
	return false, ""
}

// rejectFilter runs for every filter that reads stored events (khatru skips
// it for "limit":0), so it also counts them.
func (r *Relay) rejectFilter(ctx context.Context, _ gn.Filter) (bool, string) {
	if r.requireAuth.Load() && khatru.GetAuthed(ctx) == "" {
		return true, "auth-required: this relay only serves authenticated clients"
	}
	if reason := r.opts.RefuseNegentropy; reason != "" && eventstore.IsNegentropySession(ctx) {
		return true, reason
	}
	r.queries.Add(1)
	return false, ""
}

func (r *Relay) serve(ln net.Listener) {
	tl := newTrackingListener(ln, &r.traffic)
	srv := &http.Server{
		Handler:           r.guard.wrap(r.withNIP11(r.kh)),
		ReadHeaderTimeout: 5 * time.Second,
	}
	r.mu.Lock()
	r.srv, r.ln = srv, tl
	r.mu.Unlock()
	r.serving.Add(1)
	go func() {
		defer r.serving.Done()
		srv.Serve(tl)
	}()
}

// URL is the relay's websocket address, ws://host:port.
func (r *Relay) URL() string { return "ws://" + r.addr }

// Addr is the host:port the relay listens on (the same after Restart).
func (r *Relay) Addr() string { return r.addr }

// DropConnections closes every client connection at the TCP level, as a
// network fault would, and reports how many it closed. The relay keeps
// listening.
func (r *Relay) DropConnections() int {
	r.mu.Lock()
	ln := r.ln
	r.mu.Unlock()
	if ln == nil {
		return 0
	}
	return ln.dropAll()
}

// Stop stops listening and drops every connection; the events stay. The
// relay looks down until Restart.
func (r *Relay) Stop() {
	r.mu.Lock()
	srv, ln := r.srv, r.ln
	r.srv, r.ln = nil, nil
	r.mu.Unlock()
	if srv == nil {
		return
	}
	srv.Close()
	ln.dropAll()
	r.serving.Wait()
}

// Restart listens again on the same address after Stop.
func (r *Relay) Restart() error {
	r.mu.Lock()
	running, closed := r.srv != nil, r.closed
	r.mu.Unlock()
	if closed {
		return errors.New("relayd: restart after close")
	}
	if running {
		return nil
	}
	ln, err := net.Listen("tcp", r.addr)
	if err != nil {
		return fmt.Errorf("relayd: listen %s again: %w", r.addr, err)
	}
	r.serve(ln)
	return nil
}

// Close stops the relay for good and closes the store. It is safe to call
// more than once.
func (r *Relay) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	close(r.done)
	r.mu.Unlock()
	r.Stop()
	r.store.Close()
	return nil
}

// SetRejectWrites makes the relay refuse every EVENT with this OK message
// ("" accepts again). A message without a machine prefix gets "blocked: ".
func (r *Relay) SetRejectWrites(reason string) { r.rejectWrites.Store(&reason) }

// SetRequireAuth turns NIP-42 AUTH for queries and writes on or off.
func (r *Relay) SetRequireAuth(on bool) { r.requireAuth.Store(on) }

// Inject stores an event without any check (id, signature, duplicates,
// auth) and sends it to the live subscriptions it matches: the way to make
// the relay serve a forged event to a client under test.
func (r *Relay) Inject(ctx context.Context, ev *gn.Event) error {
	if err := r.store.SaveEvent(ctx, ev); err != nil {
		return fmt.Errorf("relayd: inject: %w", err)
	}
	r.live.broadcast(ev)
	return nil
}

// Publish stores a checked event through khatru's own pipeline (replaceable
// kinds replace), bypassing the write policy (auth, rejection), and
// broadcasts it: a way for a test to seed the relay without a client.
func (r *Relay) Publish(ctx context.Context, ev *gn.Event) error {
	if !ev.CheckID() {
		return errors.New("relayd: publish: id is not the hash of the event")
	}
	if ok, _ := ev.CheckSignature(); !ok {
		return errors.New("relayd: publish: bad signature")
	}
	if _, err := r.kh.AddEvent(context.WithValue(ctx, internalKey{}, true), ev); err != nil {
		return fmt.Errorf("relayd: publish: %w", err)
	}
	return nil
}

// Count is the number of events stored.
func (r *Relay) Count() int {
	n, _ := r.store.Len(context.Background())
	return n
}

// Has reports whether the relay stores the event.
func (r *Relay) Has(id string) bool {
	ok, _ := r.store.Has(context.Background(), id)
	return ok
}

// Queries is the number of stored-event filters served so far (REQ filters
// other than "limit":0), to see paging happen.
func (r *Relay) Queries() int64 { return r.queries.Load() }

// Traffic is the number of bytes the relay has read from and written to
// its clients so far, every connection together (HTTP and websocket
// framing included), to measure what a sync costs on the wire.
func (r *Relay) Traffic() (read, written int64) {
	return r.traffic.read.Load(), r.traffic.written.Load()
}

// Writes is the number of EVENTs clients have sent, accepted or not.
func (r *Relay) Writes() int64 { return r.writes.Load() }

// Subscriptions is the number of open subscriptions, all clients together.
func (r *Relay) Subscriptions() int { return r.live.count() }

// Connections is the number of client websockets open now.
func (r *Relay) Connections() int {
	r.wsMu.Lock()
	defer r.wsMu.Unlock()
	return len(r.websockets)
}

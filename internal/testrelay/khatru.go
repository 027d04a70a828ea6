// Package testrelay starts relays of other projects' software on loopback
// for tests: vesper must work against relays as operators run them, not
// only against relayd, which is written to be exact (its stores lift the
// query cap for NIP-77; stock stores do not).
package testrelay

import (
	"context"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	badgerdb "github.com/dgraph-io/badger/v4"
	"github.com/fiatjaf/eventstore"
	"github.com/fiatjaf/eventstore/badger"
	"github.com/fiatjaf/eventstore/slicestore"
	"github.com/fiatjaf/khatru"
	gn "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip11"

	"vesper/nostr"
)

// KhatruOptions configure a khatru v0.19.1 relay with NIP-77 on.
type KhatruOptions struct {
	// Store is "slice" (eventstore's slicestore, the default), "lmdb"
	// (eventstore's lmdb, which needs cgo; without it the test is
	// skipped) or "badger" (eventstore's badger, in memory).
	Store string
	// StoreMaxLimit is the store's MaxLimit; 0 keeps the store's stock
	// setting (slicestore: 500 for every query, NIP-77 sessions included;
	// lmdb: no negentropy cap unless set, then the same cap for both).
	StoreMaxLimit int
	// MaxLimit, when set, is announced as limitation.max_limit in the
	// NIP-11 document. khatru does not enforce it: the store's cap is what
	// bounds a query, as on a relay whose operator filled in the document
	// by hand.
	MaxLimit int
	// TooMany, when positive, refuses a NIP-77 session whose filter matches
	// more than TooMany stored events with NEG-ERR "blocked: too many query
	// results", as strfry does past its maxSyncEvents.
	TooMany int
	// Auth makes every stored-event read (REQ and NEG-OPEN) need NIP-42
	// AUTH: the relay sends its challenge on connect and refuses an
	// unauthenticated read "auth-required:".
	Auth bool
	// NegDrop, when positive, is the share of ids each NIP-77 session
	// leaves out at random (a relay whose set drops some, issue 34);
	// REQs are answered whole.
	NegDrop float64
	// RefusePaged, when positive, closes the first RefusePaged REQ filters
	// that carry a limit (a paged read's, not a live subscription's) with
	// "error:", as a relay short of time does: the client must not take
	// what it has as the whole history.
	RefusePaged int
}

// KhatruRelay is a running khatru relay.
type KhatruRelay struct {
	URL string // ws://127.0.0.1:port

	store    *lockedStore
	queries  atomic.Int64 // REQ filters that read the store
	sessions atomic.Int64 // NEG-OPENs that read the store
	refused  atomic.Int64 // NEG-OPENs refused as "too many"
	paged    atomic.Int64 // REQ filters with a limit (RefusePaged)
	read     atomic.Int64 // bytes read from clients (TCP payload)
	written  atomic.Int64 // bytes written to clients
}

// Khatru starts a khatru relay with NIP-77 on the configured store,
// closed when the test ends.
func Khatru(t testing.TB, o KhatruOptions) *KhatruRelay {
	t.Helper()
	var inner eventstore.Store
	switch o.Store {
	case "", "slice":
		inner = &slicestore.SliceStore{MaxLimit: o.StoreMaxLimit}
	case "lmdb":
		inner = lmdbStore(t, o.StoreMaxLimit)
	case "badger":
		// In memory, as fast as the test needs; the store's queries and
		// caps are badger's own.
		inner = &badger.BadgerBackend{MaxLimit: o.StoreMaxLimit, BadgerOptionsModifier: func(opts badgerdb.Options) badgerdb.Options {
			return opts.WithInMemory(true).WithDir("").WithValueDir("").WithLogger(nil)
		}}
	default:
		t.Fatalf("testrelay: unknown store %q", o.Store)
	}
	if err := inner.Init(); err != nil {
		t.Fatalf("testrelay: %s store: %v", o.Store, err)
	}
	r := &KhatruRelay{store: &lockedStore{Store: inner, negDrop: o.NegDrop}}

	kh := khatru.NewRelay()
	kh.Log = log.New(io.Discard, "", 0)
	kh.Info.Name = "khatru test relay"
	kh.Negentropy = true
	if o.MaxLimit > 0 {
		kh.Info.Limitation = &nip11.RelayLimitationDocument{MaxLimit: o.MaxLimit}
	}
	kh.StoreEvent = append(kh.StoreEvent, r.store.SaveEvent)
	kh.QueryEvents = append(kh.QueryEvents, r.store.QueryEvents)
	kh.CountEvents = append(kh.CountEvents, r.store.CountEvents)
	kh.DeleteEvent = append(kh.DeleteEvent, r.store.DeleteEvent)
	kh.ReplaceEvent = append(kh.ReplaceEvent, r.store.ReplaceEvent)
	if o.Auth {
		kh.OnConnect = append(kh.OnConnect, khatru.RequestAuth)
		kh.RejectFilter = append(kh.RejectFilter, func(ctx context.Context, f gn.Filter) (bool, string) {
			if khatru.GetAuthed(ctx) == "" {
				return true, "auth-required: this relay reads only to authenticated clients"
			}
			return false, ""
		})
	}
	kh.RejectFilter = append(kh.RejectFilter, func(ctx context.Context, f gn.Filter) (bool, string) {
		if !eventstore.IsNegentropySession(ctx) {
			r.queries.Add(1)
			if f.Limit > 0 && r.paged.Add(1) <= int64(o.RefusePaged) {
				return true, "error: the relay ran out of time for this query"
			}
			return false, ""
		}
		r.sessions.Add(1)
		if o.TooMany > 0 {
			if n, err := r.store.CountEvents(ctx, f); err == nil && n > int64(o.TooMany) {
				r.refused.Add(1)
				return true, "blocked: too many query results"
			}
		}
		return false, ""
	})

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(kh)
	srv.Listener = &countingListener{Listener: ln, r: r}
	srv.Start()
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		r.store.Close()
	})
	r.URL = "ws" + strings.TrimPrefix(srv.URL, "http")
	return r
}

// Store saves events straight into the relay's store, as if published
// earlier: no broadcast to subscribers (khatru v0.19.1 walks its listener
// list without a lock, which -race reports when a publication meets a new
// subscription).
func (r *KhatruRelay) Store(ctx context.Context, evs ...*nostr.Event) error {
	for _, ev := range evs {
		if err := r.store.SaveEvent(ctx, ev); err != nil && err != eventstore.ErrDupEvent {
			return err
		}
	}
	return nil
}

// Queries is how many REQ filters read the store so far.
func (r *KhatruRelay) Queries() int64 { return r.queries.Load() }

// NegSessions is how many NIP-77 sessions were opened (refused or not).
func (r *KhatruRelay) NegSessions() int64 { return r.sessions.Load() }

// TooManyRefusals is how many NIP-77 sessions got "too many".
func (r *KhatruRelay) TooManyRefusals() int64 { return r.refused.Load() }

// Traffic is the bytes the relay read from and wrote to its clients
// (HTTP and websocket framing included).
func (r *KhatruRelay) Traffic() (read, written int64) { return r.read.Load(), r.written.Load() }

// lockedStore serialises a store's writes against its reads: slicestore
// v0.16.2 reads its slice without a lock while khatru runs every message
// in a goroutine of its own, which races. Queries run whole under the
// read lock, each answer (bounded by the store's own cap) collected before
// it is handed to khatru, so what a query returns is the stock store's.
type lockedStore struct {
	eventstore.Store
	mu      sync.RWMutex
	negDrop float64 // KhatruOptions.NegDrop
}

func (s *lockedStore) QueryEvents(ctx context.Context, f gn.Filter) (chan *gn.Event, error) {
	s.mu.RLock()
	// Drained whole on a context that is not cancelled: slicestore's
	// goroutine returns without closing its channel when ctx ends.
	ch, err := s.Store.QueryEvents(context.WithoutCancel(ctx), f)
	var evs []*gn.Event
	if err == nil {
		for ev := range ch {
			evs = append(evs, ev)
		}
	}
	s.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	if s.negDrop > 0 && eventstore.IsNegentropySession(ctx) {
		evs = slices.DeleteFunc(evs, func(*gn.Event) bool { return rand.Float64() < s.negDrop })
	}
	out := make(chan *gn.Event)
	go func() {
		defer close(out)
		for _, ev := range evs {
			select {
			case out <- ev:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

func (s *lockedStore) CountEvents(ctx context.Context, f gn.Filter) (int64, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if c, ok := s.Store.(eventstore.Counter); ok {
		return c.CountEvents(ctx, f)
	}
	return 0, nil
}

func (s *lockedStore) SaveEvent(ctx context.Context, ev *gn.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Store.SaveEvent(ctx, ev)
}

func (s *lockedStore) DeleteEvent(ctx context.Context, ev *gn.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Store.DeleteEvent(ctx, ev)
}

func (s *lockedStore) ReplaceEvent(ctx context.Context, ev *gn.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Store.ReplaceEvent(ctx, ev)
}

// countingListener counts the relay's traffic.
type countingListener struct {
	net.Listener
	r *KhatruRelay
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, r: l.r}, nil
}

type countingConn struct {
	net.Conn
	r *KhatruRelay
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.r.read.Add(int64(n))
	return n, err
}

func (c *countingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.r.written.Add(int64(n))
	return n, err
}

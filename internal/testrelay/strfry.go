package testrelay

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	ws "github.com/coder/websocket"
	gn "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip77/negentropy"

	"vesper/nostr"
)

// StrfryOptions configure a relay that answers as strfry does. Zero
// values take strfry's defaults (its strfry.conf), in brackets.
type StrfryOptions struct {
	// AuthReads turns on strfry's NIP-42 restricted reads
	// (relay.auth.restrictedReadKinds) for RestrictedKinds, with
	// restrictReadToInvolvedPubkey off: any authenticated client may read
	// them.
	AuthReads bool
	// RestrictedKinds are the kinds that need AUTH to read [the game
	// kinds, nostr.GameKinds].
	RestrictedKinds []int
	// MaxSyncEvents is relay.negentropy.maxSyncEvents: a NEG-OPEN whose
	// filter matches more is refused "blocked: too many query results"
	// [1,000,000].
	MaxSyncEvents int
	// MaxEventSize is events.maxEventSize, bytes of the event's JSON: a
	// larger event is refused "invalid: event too large: N" [65536].
	MaxEventSize int
	// MaxFilterLimit is relay.maxFilterLimit, the events one filter
	// returns at most [500].
	MaxFilterLimit int
	// NoNegentropy is relay.negentropy.enabled = false.
	NoNegentropy bool
	// Seed is stored before the relay starts, as if published earlier.
	Seed []*nostr.Event
	// Stats, when set, counts what the relay did.
	Stats *StrfryStats
}

// StrfryStats counts a Strfry relay's work, for tests to assert on.
type StrfryStats struct {
	Auths        atomic.Int64 // AUTH events accepted
	AuthRefusals atomic.Int64 // reads refused "auth-required:" (CLOSED and NEG-ERR)
	NegOpens     atomic.Int64 // NEG-OPENs reconciled (not refused)
	Stored       atomic.Int64 // events stored from EVENT messages
}

// strfry's defaults (strfry.conf and golpe.yaml).
const (
	strfryMaxSyncEvents    = 1_000_000
	strfryMaxEventSize     = 65536
	strfryMaxFilterLimit   = 500
	strfryMaxPayload       = 131072 // relay.maxWebsocketPayloadSize
	strfryMaxSubs          = 200
	strfryChallengeSize    = 22     // AuthSession::kChallengeSize
	strfryNegFrameLimit    = 500000 // RelayNegentropy.cpp
	strfryNewerThanSeconds = 900    // events.rejectEventsNewerThanSeconds
	strfryAuthRequired     = "auth-required: requested filter requires authentication"
)

// Strfry starts a relay that answers as strfry does where strfry differs
// from khatru, and returns its ws:// URL; it stops when the test ends.
//
// What it reproduces (each from strfry's source):
//   - NIP-11: supported_nips with 42 and 77, no auth_required (strfry
//     never announces it), limitation max_message_length, max_subscriptions
//     and max_limit.
//   - No challenge at connect. A REQ whose every filter lists only
//     restricted kinds, from a connection not authenticated, gets
//     ["AUTH", challenge] (the first time on that connection only) and then
//     ["CLOSED", id, "ERROR: auth-required: requested filter requires
//     authentication"]. A filter without kinds (by ids, by tags) is served,
//     but events of restricted kinds are withheld from it without a word.
//   - NEG-OPEN likewise: the challenge, then NEG-ERR "auth-required: ..."
//     (without "ERROR: "). Once the connection has authenticated, NEG-OPEN
//     is accepted, but the set reconciled leaves out every restricted kind
//     all the same (strfry 1.x's negentropy worker keeps the connection's
//     unauthenticated view), so it is empty for the game kinds. More than MaxSyncEvents matching events: NEG-ERR
//     "blocked: too many query results" with the cap as a fourth element.
//     NEG-MSG for no session: NEG-ERR "closed: unknown subscription
//     handle".
//   - AUTH: OK true "successfully authenticated"; a bad one OK false
//     "error: ..." (challenge string mismatch, already authenticated...).
//   - EVENT: OK true "" when stored, OK true "duplicate: have this event",
//     OK false "invalid: event too large: N", "invalid: bad event id",
//     "invalid: bad signature", "invalid: created_at too late".
//   - NOTICE reasons behind "ERROR: " ("ERROR: bad msg: unknown cmd").
func Strfry(t testing.TB, opts StrfryOptions) string {
	t.Helper()
	if opts.MaxSyncEvents <= 0 {
		opts.MaxSyncEvents = strfryMaxSyncEvents
	}
	if opts.MaxEventSize <= 0 {
		opts.MaxEventSize = strfryMaxEventSize
	}
	if opts.MaxFilterLimit <= 0 {
		opts.MaxFilterLimit = strfryMaxFilterLimit
	}
	if opts.AuthReads && opts.RestrictedKinds == nil {
		opts.RestrictedKinds = nostr.GameKinds()
	}
	if opts.Stats == nil {
		opts.Stats = &StrfryStats{}
	}
	r := &strfry{opts: opts, conns: map[*strfryConn]bool{}, ids: map[string]bool{}}
	for _, ev := range opts.Seed {
		r.store(ev)
	}
	// Every field is set before the server starts: its first client may
	// be another process, and the race detector sees no order through a
	// socket to one (go test -race flagged r.ctx and r.host).
	srv := httptest.NewUnstartedServer(r)
	r.host = srv.Listener.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	r.ctx = ctx
	srv.Start()
	t.Cleanup(func() {
		cancel()
		srv.CloseClientConnections()
		srv.Close()
		r.wg.Wait()
	})
	return "ws://" + r.host
}

type strfry struct {
	opts StrfryOptions
	host string // host:port, what an AUTH's relay tag must name
	ctx  context.Context
	wg   sync.WaitGroup

	mu     sync.Mutex
	events []*gn.Event
	ids    map[string]bool
	conns  map[*strfryConn]bool
}

func (r *strfry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Header.Get("Upgrade") == "" {
		r.nip11(w)
		return
	}
	c, err := ws.Accept(w, req, &ws.AcceptOptions{CompressionMode: ws.CompressionDisabled})
	if err != nil {
		return
	}
	c.SetReadLimit(strfryMaxPayload)
	sc := &strfryConn{r: r, ws: c, subs: map[string]gn.Filters{}, negs: map[string]*negentropy.Negentropy{}}
	r.mu.Lock()
	r.conns[sc] = true
	r.mu.Unlock()
	r.wg.Add(1)
	defer r.wg.Done()
	defer func() {
		r.mu.Lock()
		delete(r.conns, sc)
		r.mu.Unlock()
		c.CloseNow()
	}()
	for {
		_, msg, err := c.Read(r.ctx)
		if err != nil {
			return
		}
		sc.handle(msg)
	}
}

func (r *strfry) nip11(w http.ResponseWriter) {
	nips := []int{1, 2, 4, 9, 11, 28, 40, 42, 59, 70}
	if !r.opts.NoNegentropy {
		nips = append(nips, 77)
	}
	doc := map[string]any{
		"supported_nips": nips,
		"software":       "git+https://github.com/hoytech/strfry.git",
		"version":        "vesper-testrelay",
		"limitation": map[string]any{
			"max_message_length": strfryMaxPayload,
			"max_subscriptions":  strfryMaxSubs,
			"max_limit":          r.opts.MaxFilterLimit,
		},
	}
	if !r.opts.NoNegentropy {
		doc["negentropy"] = 1
	}
	w.Header().Set("Content-Type", "application/nostr+json")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	json.NewEncoder(w).Encode(doc)
}

// store keeps ev unless it is there already; it reports whether it was new.
func (r *strfry) store(ev *gn.Event) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ids[ev.ID] {
		return false
	}
	r.ids[ev.ID] = true
	r.events = append(r.events, ev)
	return true
}

// restricted reports whether kind needs AUTH to be read.
func (r *strfry) restricted(kind int) bool {
	return r.opts.AuthReads && slices.Contains(r.opts.RestrictedKinds, kind)
}

// fullyRestricted is strfry's ReadRestrictor::isFilterGroupFullyRestricted:
// every filter lists kinds, and only restricted ones.
func (r *strfry) fullyRestricted(fs gn.Filters) bool {
	if !r.opts.AuthReads || len(fs) == 0 {
		return false
	}
	for _, f := range fs {
		if f.Kinds == nil || slices.ContainsFunc(f.Kinds, func(k int) bool { return !r.restricted(k) }) {
			return false
		}
	}
	return true
}

// query is every stored event f matches, newest first, at most limit.
func (r *strfry) query(f gn.Filter, limit int) []*gn.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Newest(slices.Values(r.events), f, limit)
}

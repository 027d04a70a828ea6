package testrelay

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	ws "github.com/coder/websocket"
	gn "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip77/negentropy"
	"github.com/nbd-wtf/go-nostr/nip77/negentropy/storage/vector"

	"vesper/internal/testkit"
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

// strfryConn is one client connection and its state.
type strfryConn struct {
	r   *strfry
	ws  *ws.Conn
	wmu sync.Mutex

	mu        sync.Mutex
	challenge string // "" until a read was refused: strfry's AuthSession
	authed    string // the authenticated pubkey
	subs      map[string]gn.Filters
	negs      map[string]*negentropy.Negentropy
}

func (c *strfryConn) send(v ...any) {
	msg, err := json.Marshal(v)
	if err != nil {
		panic(err) // our own values
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	ctx, cancel := context.WithTimeout(c.r.ctx, testkit.Scale(10*time.Second))
	defer cancel()
	c.ws.Write(ctx, ws.MessageText, msg)
}

func (c *strfryConn) notice(msg string) { c.send("NOTICE", "ERROR: "+msg) }

func (c *strfryConn) isAuthed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.authed != ""
}

// mayRead is strfry's ReadRestrictor::shouldSendToSubscriber with
// restrictReadToInvolvedPubkey off.
func (c *strfryConn) mayRead(ev *gn.Event) bool {
	return !c.r.restricted(ev.Kind) || c.isAuthed()
}

// refuseRead sends the challenge if this connection has none yet, as
// strfry does before the refusal (and only the first time).
func (c *strfryConn) refuseRead() {
	c.r.opts.Stats.AuthRefusals.Add(1)
	c.mu.Lock()
	first := c.challenge == ""
	if first {
		b := make([]byte, strfryChallengeSize)
		rand.Read(b)
		const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		for i := range b {
			b[i] = letters[int(b[i])%len(letters)]
		}
		c.challenge = string(b)
	}
	challenge := c.challenge
	c.mu.Unlock()
	if first {
		c.send("AUTH", challenge)
	}
}

func (c *strfryConn) handle(msg []byte) {
	if string(msg) == "\n" {
		return
	}
	var arr []json.RawMessage
	if len(msg) == 0 || msg[0] != '[' {
		c.notice("bad msg: unparseable message")
		return
	}
	if err := json.Unmarshal(msg, &arr); err != nil {
		c.notice("bad msg: " + err.Error())
		return
	}
	if len(arr) < 2 {
		c.notice("bad msg: too few array elements")
		return
	}
	var cmd string
	if json.Unmarshal(arr[0], &cmd) != nil {
		c.notice("bad msg: first element not a command like REQ")
		return
	}
	switch cmd {
	case "EVENT":
		c.event(arr[1])
	case "AUTH":
		c.auth(arr[1])
	case "REQ":
		c.req(arr)
	case "CLOSE":
		var id string
		json.Unmarshal(arr[1], &id)
		c.mu.Lock()
		delete(c.subs, id)
		c.mu.Unlock()
	case "NEG-OPEN", "NEG-MSG", "NEG-CLOSE":
		if c.r.opts.NoNegentropy {
			c.notice("bad msg: negentropy disabled")
			return
		}
		if err := c.neg(cmd, arr); err != nil {
			c.notice("negentropy error: " + err.Error())
		}
	default:
		c.notice("bad msg: unknown cmd")
	}
}

// parseEvent is strfry's parseAndVerifyEvent, as far as the tests need it.
func (c *strfryConn) parseEvent(raw json.RawMessage) (*gn.Event, error) {
	var ev gn.Event
	if err := json.Unmarshal(raw, &ev); err != nil {
		return nil, fmt.Errorf("event is not an object")
	}
	if n := len(ev.String()); n > c.r.opts.MaxEventSize {
		return &ev, fmt.Errorf("event too large: %d", n)
	}
	if !ev.CheckID() {
		return &ev, fmt.Errorf("bad event id")
	}
	if ok, _ := ev.CheckSignature(); !ok {
		return &ev, fmt.Errorf("bad signature")
	}
	if int64(ev.CreatedAt) > time.Now().Unix()+strfryNewerThanSeconds {
		return &ev, fmt.Errorf("created_at too late")
	}
	return &ev, nil
}

func (c *strfryConn) event(raw json.RawMessage) {
	ev, err := c.parseEvent(raw)
	if err != nil {
		id := "?"
		if ev != nil && ev.ID != "" {
			id = ev.ID
		}
		c.send("OK", id, false, "invalid: "+err.Error())
		return
	}
	if !c.r.store(ev) {
		c.send("OK", ev.ID, true, "duplicate: have this event")
		return
	}
	c.r.opts.Stats.Stored.Add(1)
	c.send("OK", ev.ID, true, "")
	c.r.broadcast(ev)
}

// broadcast sends a new event to every live subscription it matches.
func (r *strfry) broadcast(ev *gn.Event) {
	r.mu.Lock()
	conns := make([]*strfryConn, 0, len(r.conns))
	for c := range r.conns {
		conns = append(conns, c)
	}
	r.mu.Unlock()
	for _, c := range conns {
		if !c.mayRead(ev) {
			continue
		}
		c.mu.Lock()
		var ids []string
		for id, fs := range c.subs {
			if fs.Match(ev) {
				ids = append(ids, id)
			}
		}
		c.mu.Unlock()
		for _, id := range ids {
			c.send("EVENT", id, ev)
		}
	}
}

func (c *strfryConn) auth(raw json.RawMessage) {
	var ev gn.Event
	if err := json.Unmarshal(raw, &ev); err != nil {
		c.send("OK", "?", false, "error: event is not an object")
		return
	}
	fail := func(why string) { c.send("OK", ev.ID, false, "error: "+why) }
	if !ev.CheckID() {
		fail("bad event id")
		return
	}
	if ok, _ := ev.CheckSignature(); !ok {
		fail("bad signature")
		return
	}
	if ev.Kind != 22242 {
		fail("wrong event kind, expected 22242")
		return
	}
	c.mu.Lock()
	challenge, authed := c.challenge, c.authed
	c.mu.Unlock()
	switch {
	case challenge == "":
		fail("no auth status available for connection")
		return
	case authed != "":
		fail("already authenticated")
		return
	}
	var gotChallenge, gotRelay bool
	for _, tag := range ev.Tags {
		if len(tag) < 2 {
			continue
		}
		switch {
		case tag[0] == "relay" && strfryHost(tag[1]) == c.r.host:
			gotRelay = true
		case tag[0] == "challenge" && tag[1] == challenge:
			gotChallenge = true
		}
	}
	if !gotChallenge {
		fail("challenge string mismatch")
		return
	}
	if !gotRelay {
		fail("incorrect or missing relay tag, expected: ws://" + c.r.host)
		return
	}
	c.mu.Lock()
	c.authed = ev.PubKey
	c.mu.Unlock()
	c.r.opts.Stats.Auths.Add(1)
	c.send("OK", ev.ID, true, "successfully authenticated")
}

// strfryHost is strfry's normalizeRelayUrl: the host and port, lowercase,
// without scheme or path.
func strfryHost(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	}
	if i := strings.IndexAny(u, "/?#"); i >= 0 {
		u = u[:i]
	}
	return strings.ToLower(u)
}

func (c *strfryConn) req(arr []json.RawMessage) {
	var id string
	if len(arr) < 3 {
		c.notice("bad req: arr too small")
		return
	}
	if json.Unmarshal(arr[1], &id) != nil {
		c.notice("bad req: subscription id was not a string")
		return
	}
	fs := make(gn.Filters, 0, len(arr)-2)
	for _, raw := range arr[2:] {
		var f gn.Filter
		if err := json.Unmarshal(raw, &f); err != nil {
			c.send("CLOSED", id, "ERROR: bad req: "+err.Error())
			return
		}
		fs = append(fs, f)
	}
	if c.r.fullyRestricted(fs) && !c.isAuthed() {
		c.refuseRead()
		c.send("CLOSED", id, "ERROR: "+strfryAuthRequired)
		return
	}
	seen := map[string]bool{}
	var out []*gn.Event
	for _, f := range fs {
		limit := c.r.opts.MaxFilterLimit
		if f.Limit > 0 && f.Limit < limit {
			limit = f.Limit
		}
		if f.LimitZero {
			continue
		}
		for _, ev := range c.r.query(f, limit) {
			if !seen[ev.ID] {
				seen[ev.ID] = true
				out = append(out, ev)
			}
		}
	}
	c.mu.Lock()
	c.subs[id] = fs
	c.mu.Unlock()
	for _, ev := range out {
		// Restricted events are dropped from what a filter matched, not
		// refused: the client is not told.
		if c.mayRead(ev) {
			c.send("EVENT", id, ev)
		}
	}
	c.send("EOSE", id)
}

func (c *strfryConn) neg(cmd string, arr []json.RawMessage) error {
	var id string
	if json.Unmarshal(arr[1], &id) != nil {
		return fmt.Errorf("NEG subscription id was not a string")
	}
	switch cmd {
	case "NEG-CLOSE":
		c.mu.Lock()
		delete(c.negs, id)
		c.mu.Unlock()
		return nil
	case "NEG-MSG":
		return c.negMsg(id, arr)
	}
	return c.negOpen(id, arr)
}

// negMsg continues the session id with the client's next message.
func (c *strfryConn) negMsg(id string, arr []json.RawMessage) error {
	var msg string
	if len(arr) < 3 || json.Unmarshal(arr[2], &msg) != nil {
		return fmt.Errorf("negentropy payload not a string")
	}
	c.mu.Lock()
	n := c.negs[id]
	c.mu.Unlock()
	if n == nil {
		c.send("NEG-ERR", id, "closed: unknown subscription handle")
		return nil
	}
	c.reconcile(id, n, msg)
	return nil
}

// negOpen opens the session id (NEG-OPEN) over the events of its filter
// the client may read, refusing a query over MaxSyncEvents as strfry does,
// and answers its first message.
func (c *strfryConn) negOpen(id string, arr []json.RawMessage) error {
	if len(arr) < 4 {
		return fmt.Errorf("negentropy query missing elements")
	}
	var f gn.Filter
	if len(arr[2]) == 0 || arr[2][0] != '{' || json.Unmarshal(arr[2], &f) != nil {
		return fmt.Errorf("negentropy filter must be an object")
	}
	var msg string
	if json.Unmarshal(arr[3], &msg) != nil {
		return fmt.Errorf("negentropy payload not a string")
	}
	if c.r.fullyRestricted(gn.Filters{f}) && !c.isAuthed() {
		c.refuseRead()
		c.send("NEG-ERR", id, strfryAuthRequired)
		return nil
	}
	f.Limit, f.LimitZero = 0, false
	matched := c.r.query(f, c.r.opts.MaxSyncEvents+1)
	if len(matched) > c.r.opts.MaxSyncEvents {
		c.send("NEG-ERR", id, "blocked: too many query results", c.r.opts.MaxSyncEvents)
		return nil
	}
	vec := vector.New()
	for _, ev := range matched {
		// strfry's negentropy thread is never told that the connection
		// authenticated (issue 34): it reads as for a connection that did
		// not, so after AUTH a set of restricted kinds comes back empty.
		if !c.r.restricted(ev.Kind) {
			vec.Insert(ev.CreatedAt, ev.ID)
		}
	}
	vec.Seal()
	n := negentropy.New(vec, strfryNegFrameLimit)
	c.r.opts.Stats.NegOpens.Add(1)
	c.mu.Lock()
	c.negs[id] = n
	c.mu.Unlock()
	c.reconcile(id, n, msg)
	return nil
}

// reconcile answers one negentropy message; a message negentropy cannot
// read ends the session with strfry's "PROTOCOL-ERROR".
func (c *strfryConn) reconcile(id string, n *negentropy.Negentropy, msg string) {
	out, err := strfryReconcile(n, msg)
	if err != nil {
		c.mu.Lock()
		delete(c.negs, id)
		c.mu.Unlock()
		c.send("NEG-ERR", id, "PROTOCOL-ERROR")
		return
	}
	c.send("NEG-MSG", id, out)
}

// strfryReconcile is n.Reconcile with the decoder's panics on hostile
// input turned into errors.
func strfryReconcile(n *negentropy.Negentropy, msg string) (out string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	return n.Reconcile(msg)
}

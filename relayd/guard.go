package relayd

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fiatjaf/khatru"
)

// The guard bounds what clients can hold on the relay beyond a
// connection's message rates (issue 30, item 9): connections per client
// address (so that one address cannot take every slot and lock honest
// clients out with HTTP 429), connections that sit idle, and NIP-77
// sessions, each of which keeps a vector of every event its filter
// matches for as long as the client keeps it open (6,000 NEG-OPENs took
// khatru from 66 MB to 3.9 GB). khatru v0.19.1 has no hook where a
// session begins or ends, so the guard reads the client's frames before
// khatru does (clientFrames) and khatru's answers on the way out
// (negErrConn.observe), and answers a NEG-OPEN over the limits itself,
// with NEG-ERR "blocked: ...", without khatru ever seeing it.
type guard struct {
	lim      Limits
	neg      bool // NIP-77 is served
	maxHold  int  // the largest client message khatru reads
	storeLen func() int
	subs     func(*khatru.WebSocket) int
	now      func() time.Time

	mu       sync.Mutex
	perKey   map[string]int
	conns    map[*guardedConn]struct{}
	byReq    map[*http.Request]*guardedConn // until khatru's OnConnect links the WebSocket
	negOpen  int
	negBytes int64

	sizeMu sync.Mutex // storeSize's cache
	size   int
	sizeAt time.Time

	negRefused atomic.Int64
	keyRefused atomic.Int64
	idleClosed atomic.Int64
	subRefused atomic.Int64 // REQs past MaxSubscriptions (flow.go)
	struckOut  atomic.Int64 // connections closed after MaxStrikes
	stalled    atomic.Int64 // connections closed for leaving MaxInFlight unanswered
}

// negIdle is how long after its last message a session is counted:
// khatru forgets one 7 s after its last answer. negPending bounds a
// NEG-OPEN that khatru has not answered yet (it is building the vector).
const (
	negIdle    = 10 * time.Second
	negPending = time.Minute
)

// negItemBytes and negBaseBytes estimate what one session holds: a
// vector item (a timestamp and an id string, with append's slack, and the
// id's own bytes when the store makes new strings) per stored event, as a
// filter may match them all, and the session's fixed part.
const (
	negItemBytes = 128
	negBaseBytes = 64 << 10
)

func newGuard(lim Limits, neg bool, storeLen func() int, subs func(*khatru.WebSocket) int) *guard {
	maxHold := int(lim.MaxMessageBytes)
	if maxHold <= 0 {
		maxHold = 512000 // khatru's own default
	}
	return &guard{lim: lim, neg: neg, maxHold: maxHold, storeLen: storeLen, subs: subs, now: time.Now,
		perKey: map[string]int{}, conns: map[*guardedConn]struct{}{}, byReq: map[*http.Request]*guardedConn{}}
}

// clientKey is the address a connection is counted under: the remote IP,
// an IPv6 one by its /64 (what one host is usually given).
func (g *guard) clientKey(req *http.Request) string {
	if g.lim.ClientKey != nil {
		return g.lim.ClientKey(req)
	}
	ap, err := netip.ParseAddrPort(req.RemoteAddr)
	if err != nil {
		return req.RemoteAddr
	}
	ip := ap.Addr().Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}

// wrap guards websocket upgrades on their way to next.
func (g *guard) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if !strings.EqualFold(req.Header.Get("Upgrade"), "websocket") {
			next.ServeHTTP(w, req)
			return
		}
		key := g.clientKey(req)
		if !g.reserve(key) {
			g.keyRefused.Add(1)
			http.Error(w, "too many connections from this address", http.StatusTooManyRequests)
			return
		}
		gw := &guardWriter{ResponseWriter: w, g: g, key: key, req: req}
		next.ServeHTTP(gw, req)
		if gw.conn == nil {
			g.unreserve(key)
		}
	})
}

func (g *guard) reserve(key string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if max := g.lim.MaxConnectionsPerIP; max > 0 && g.perKey[key] >= max {
		return false
	}
	g.perKey[key]++
	return true
}

func (g *guard) unreserve(key string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.unreserveLocked(key)
}

func (g *guard) unreserveLocked(key string) {
	if g.perKey[key]--; g.perKey[key] <= 0 {
		delete(g.perKey, key)
	}
}

// guardWriter hands khatru's websocket upgrader a guarded connection.
// The upgrader hijacks through http.ResponseController, which finds this
// Hijack method first.
type guardWriter struct {
	http.ResponseWriter
	g    *guard
	key  string
	req  *http.Request
	conn *guardedConn
}

func (w *guardWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *guardWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	// What the client sent after its handshake, already buffered, must
	// pass through the guard's reader too.
	var src io.Reader = c
	if n := brw.Reader.Buffered(); n > 0 {
		early, _ := brw.Reader.Peek(n)
		src = io.MultiReader(bytes.NewReader(bytes.Clone(early)), c)
	}
	gc := &guardedConn{negErrConn: &negErrConn{Conn: c}, g: w.g, key: w.key, req: w.req,
		sessions: map[string]*negSession{}, fl: newFlow()}
	gc.frames = &clientFrames{src: src, maxHold: w.g.maxHold, onMessage: gc.onMessage}
	if w.g.neg {
		gc.negErrConn.observe = gc.observe
	}
	if w.g.lim.MaxInFlight > 0 || w.g.lim.MaxSubscriptions > 0 || w.g.lim.MaxStrikes > 0 {
		gc.negErrConn.answer = gc.answered
	}
	gc.lastData.Store(w.g.now().UnixNano())
	w.g.mu.Lock()
	w.g.conns[gc] = struct{}{}
	w.g.byReq[w.req] = gc
	w.g.mu.Unlock()
	w.conn = gc
	return gc, bufio.NewReadWriter(bufio.NewReader(gc), brw.Writer), nil
}

// link ties khatru's WebSocket to its guarded connection (khatru's
// OnConnect), so that idleness can ask for its subscriptions.
func (g *guard) link(ws *khatru.WebSocket) {
	if ws == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if gc := g.byReq[ws.Request]; gc != nil {
		gc.ws = ws
		delete(g.byReq, ws.Request)
	}
}

// storeSize is the number of stored events, counted at most once a
// second: in SQLite a count reads the whole table, and a flood of
// NEG-OPENs must not turn into a flood of counts.
func (g *guard) storeSize() int {
	g.sizeMu.Lock()
	defer g.sizeMu.Unlock()
	if now := g.now(); g.sizeAt.IsZero() || now.Sub(g.sizeAt) >= time.Second {
		g.size, g.sizeAt = g.storeLen(), now
	}
	return g.size
}

func (g *guard) pruneAllLocked(now time.Time) {
	for c := range g.conns {
		c.pruneLocked(now)
	}
}

// reapIdle closes every connection whose client has sent no message for
// IdleTimeout and that holds no subscription and no NIP-77 session.
func (g *guard) reapIdle() {
	now := g.now()
	var idle []*guardedConn
	g.mu.Lock()
	for c := range g.conns {
		c.pruneLocked(now)
		if now.Sub(time.Unix(0, c.lastData.Load())) < g.lim.IdleTimeout || len(c.sessions) > 0 {
			continue
		}
		if c.ws != nil && g.subs(c.ws) > 0 {
			continue
		}
		idle = append(idle, c)
	}
	g.mu.Unlock()
	for _, c := range idle {
		g.idleClosed.Add(1)
		c.Close()
	}
}

// runReaper calls reapIdle until done is closed.
func (g *guard) runReaper(done <-chan struct{}) {
	if g.lim.IdleTimeout <= 0 {
		return
	}
	t := time.NewTicker(max(g.lim.IdleTimeout/4, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			g.reapIdle()
		}
	}
}

// NegSessions is the NIP-77 sessions open now, all connections together,
// and the memory they are counted for (Limits.NegMemoryBytes).
func (r *Relay) NegSessions() (open int, bytes int64) {
	r.guard.mu.Lock()
	defer r.guard.mu.Unlock()
	return r.guard.negOpen, r.guard.negBytes
}

// GuardRefusals counts what the guard has refused so far: NEG-OPENs over
// the NIP-77 limits, connections over MaxConnectionsPerIP, and idle
// connections closed.
func (r *Relay) GuardRefusals() (neg, perIP, idle int64) {
	return r.guard.negRefused.Load(), r.guard.keyRefused.Load(), r.guard.idleClosed.Load()
}

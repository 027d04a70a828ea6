package relayd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fiatjaf/khatru"
	"github.com/nbd-wtf/go-nostr/nip77"
)

// guardedConn is one client's connection: writes through negErrConn,
// reads through clientFrames.
type guardedConn struct {
	*negErrConn
	frames *clientFrames
	g      *guard
	key    string
	req    *http.Request
	fl     *flow

	lastData atomic.Int64 // unix nanoseconds of the client's last data message
	once     sync.Once

	// Under g.mu:
	ws       *khatru.WebSocket
	sessions map[string]*negSession
}

type negSession struct {
	last    time.Time
	pending bool // khatru has not answered the NEG-OPEN yet
	cost    int64
}

func (c *guardedConn) Read(p []byte) (int, error) { return c.frames.Read(p) }

func (c *guardedConn) Close() error {
	c.once.Do(func() {
		g := c.g
		g.mu.Lock()
		defer g.mu.Unlock()
		for sub := range c.sessions {
			c.endLocked(sub)
		}
		delete(g.conns, c)
		delete(g.byReq, c.req)
		g.unreserveLocked(c.key)
		close(c.fl.closed)
	})
	return c.negErrConn.Close()
}

// onMessage sees each whole client message before khatru; false drops it.
func (c *guardedConn) onMessage(payload []byte, text bool) bool {
	c.lastData.Store(c.g.now().UnixNano())
	if text && c.g.neg && bytes.HasPrefix(payload, []byte(`["NEG-`)) && !c.onNeg(payload) {
		return false
	}
	return c.admitMessage(payload)
}

// onNeg follows a NIP-77 message; false drops it (answered by the guard).
func (c *guardedConn) onNeg(payload []byte) bool {
	switch env := nip77.ParseNegMessage(string(payload)).(type) {
	case *nip77.OpenEnvelope:
		if reason := c.admit(env.SubscriptionID); reason != "" {
			c.g.negRefused.Add(1)
			msg, _ := json.Marshal([]string{"NEG-ERR", env.SubscriptionID, reason})
			c.inject(msg)
			return false
		}
	case *nip77.MessageEnvelope:
		c.touch(env.SubscriptionID, false)
	case *nip77.CloseEnvelope:
		c.end(env.SubscriptionID)
	}
	return true
}

// observe follows khatru's NIP-77 answers: an error or an empty message
// ends a session (khatru then keeps nothing), any other message is
// activity.
func (c *guardedConn) observe(start []byte, whole bool) {
	var label string
	switch {
	case bytes.HasPrefix(start, []byte(`["NEG-MSG","`)):
		label = "NEG-MSG"
	case bytes.HasPrefix(start, []byte(negErrorPrefix+`"`)):
		label = "NEG-ERROR"
	default:
		return
	}
	rest := start[len(label)+5:]
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return
	}
	sub := string(rest[:end])
	if label == "NEG-ERROR" || (whole && bytes.HasSuffix(start, []byte(`",""]`))) {
		c.end(sub)
		return
	}
	c.touch(sub, true)
}

// admit counts a NEG-OPEN against the connection's and the relay's
// limits, or says why not (a NIP-01 "blocked:" reason).
func (c *guardedConn) admit(sub string) string {
	g := c.g
	var cost int64
	if g.lim.NegMemoryBytes > 0 {
		cost = negBaseBytes + int64(g.storeSize())*negItemBytes
	}
	now := g.now()
	g.mu.Lock()
	defer g.mu.Unlock()
	c.pruneLocked(now)
	if s := c.sessions[sub]; s != nil {
		// khatru replaces a session reopened under the same id.
		s.last, s.pending = now, true
		return ""
	}
	lim := g.lim
	if lim.NegSessionsPerConnection > 0 && len(c.sessions) >= lim.NegSessionsPerConnection {
		return fmt.Sprintf("blocked: %d NIP-77 sessions are open on this connection, the most allowed; close one (NEG-CLOSE) first", len(c.sessions))
	}
	if lim.NegSessionsTotal > 0 && g.negOpen >= lim.NegSessionsTotal {
		g.pruneAllLocked(now)
		if g.negOpen >= lim.NegSessionsTotal {
			return fmt.Sprintf("blocked: %d NIP-77 sessions are open on this relay, the most allowed; try again later", g.negOpen)
		}
	}
	if lim.NegMemoryBytes > 0 && g.negBytes+cost > lim.NegMemoryBytes {
		g.pruneAllLocked(now)
		if g.negBytes+cost > lim.NegMemoryBytes {
			return "blocked: the relay's memory for NIP-77 sessions is in use; try again later"
		}
	}
	c.sessions[sub] = &negSession{last: now, pending: true, cost: cost}
	g.negOpen++
	g.negBytes += cost
	return ""
}

func (c *guardedConn) touch(sub string, answered bool) {
	now := c.g.now()
	c.g.mu.Lock()
	defer c.g.mu.Unlock()
	if s := c.sessions[sub]; s != nil {
		s.last = now
		if answered {
			s.pending = false
		}
	}
}

func (c *guardedConn) end(sub string) {
	c.g.mu.Lock()
	defer c.g.mu.Unlock()
	c.endLocked(sub)
}

func (c *guardedConn) endLocked(sub string) {
	s := c.sessions[sub]
	if s == nil {
		return
	}
	delete(c.sessions, sub)
	c.g.negOpen--
	c.g.negBytes -= s.cost
}

// pruneLocked forgets the sessions khatru has forgotten by now.
func (c *guardedConn) pruneLocked(now time.Time) {
	for sub, s := range c.sessions {
		ttl := negIdle
		if s.pending {
			ttl = negPending
		}
		if now.Sub(s.last) > ttl {
			c.endLocked(sub)
		}
	}
}

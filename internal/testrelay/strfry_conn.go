package testrelay

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	ws "github.com/coder/websocket"
	gn "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip77/negentropy"

	"vesper/internal/testkit"
)

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

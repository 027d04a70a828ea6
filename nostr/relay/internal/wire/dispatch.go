package wire

import (
	"encoding/json"
	"fmt"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/nostr"
	"vesper/nostr/batch"
)

// Reasons passed to relay.Config.OnReject for events a relay sent that are never
// delivered.
const (
	RejectMalformed    = "malformed"     // not a well-formed event (PROTOCOL.md section 1)
	RejectBadID        = "bad_id"        // id is not the hash of the event
	RejectBadSignature = "bad_signature" // BIP-340 signature does not check
	RejectUnrequested  = "unrequested"   // matches none of the subscription's filters
	RejectOversized    = "oversized"     // a message over relay.Config.MaxMessageSize, dropped unread
)

// maxRun bounds the events checked in one batch.
const maxRun = 512

// dispatch handles frames in arrival order: each run of EVENT frames already
// waiting is checked as one batch, then delivered in order, before the next
// other message (an EOSE must follow the events before it).
func (c *Conn) dispatch(frames <-chan []byte) {
	defer close(c.dispatched)
	var run []envelope
	flush := func() {
		c.handleEvents(run)
		run = run[:0]
	}
	for msg := range frames {
		pending := [][]byte{msg}
	more:
		for len(pending) < maxRun {
			select {
			case m, ok := <-frames:
				if !ok {
					break more
				}
				pending = append(pending, m)
			default:
				break more
			}
		}
		size := 0
		for _, m := range pending {
			size += len(m)
			if c.Ctx.Err() != nil {
				// Closed: what is left is not delivered, so that a session
				// that has ended hears nothing more from its connection
				// (nothing delivered is behind a saved cursor either way:
				// the next backfill asks again).
				continue
			}
			env, ok := c.envelope(m)
			if !ok {
				continue
			}
			if env.label == "EVENT" {
				if len(env.arr) >= 3 {
					run = append(run, env)
				}
				continue
			}
			flush()
			c.handle(env)
		}
		flush()
		c.release(size)
	}
}

func (c *Conn) handle(env envelope) {
	arr, label, str := env.arr, env.label, env.str
	switch label {
	case "EOSE":
		if s := c.lookup(str(1)); s != nil {
			s.eoseOnce.Do(func() { close(s.eose) })
		}
	case "CLOSED":
		id := str(1)
		if s := c.lookup(id); s != nil {
			c.forget(id)
			s.closeOnce.Do(func() { s.closed <- Clip(str(2)) })
		}
	case "OK":
		if len(arr) < 3 {
			return
		}
		var ok bool
		json.Unmarshal(arr[2], &ok)
		c.mu.Lock()
		ch := c.oks[str(1)]
		c.mu.Unlock()
		if ch != nil {
			select {
			case ch <- OKReply{OK: ok, Msg: Clip(str(3))}:
			default:
			}
		}
	case "AUTH":
		c.mu.Lock()
		c.challenge = str(1)
		c.mu.Unlock()
		c.challengeOK.Do(func() { close(c.challengeCh) })
	case "NOTICE":
		// A relay chooses how many notices it sends and how long they are:
		// both are bounded before they reach the log (and its disk).
		if ok, dropped := c.notices.allow(c.now()); ok {
			if dropped > 0 {
				c.Log.Info("relay: notice", "relay", c.URL, "notice", Clip(str(1)), "suppressed_before", dropped)
			} else {
				c.Log.Info("relay: notice", "relay", c.URL, "notice", Clip(str(1)))
			}
		}
		c.toNeg(env.raw) // a relay without NIP-77 answers NEG-OPEN with one
	case "NEG-MSG", "NEG-ERR", "NEG-ERROR":
		c.toNeg(env.raw)
	}
}

// negFrames hands the connection's NIP-77 messages and NOTICEs to the
// caller, in order, from now on: a reconciliation reads them while AUTH
// and its OK stay with the connection, so a NIP-77 session authenticates
// through the same auth as a REQ. The dispatcher waits while negQueue of
// them are untaken (a few stray ones may come while the caller waits for
// an AUTH's OK), until the connection ends.
func (c *Conn) NegFrames() <-chan []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.neg == nil {
		c.neg = make(chan []byte, negQueue)
	}
	return c.neg
}

// negQueue is how many NIP-77 messages wait for the reconciliation: an
// honest relay sends one per message of ours, so a stray one or two while
// an AUTH is answered fit; each may be negReadLimit bytes, held outside
// the connection's queue.
const negQueue = 2

func (c *Conn) toNeg(msg []byte) {
	c.mu.Lock()
	ch := c.neg
	c.mu.Unlock()
	if ch == nil {
		return
	}
	select {
	case ch <- msg:
	case <-c.Ctx.Done():
	}
}

// handleEvents is the gate of PROTOCOL.md section 1 for a run of EVENT
// messages: the raw bytes are parsed strictly and the ids and signatures
// checked (the signatures together); oversized events still pass (the fold
// must see them to ignore them as too large). Then each is delivered, in
// order.
func (c *Conn) handleEvents(run []envelope) {
	if len(run) == 0 {
		return
	}
	evs := make([]*gn.Event, len(run))
	subs := make([]*Sub, len(run))
	for i, env := range run {
		if subs[i] = c.lookup(env.str(1)); subs[i] == nil {
			continue // a subscription we have closed
		}
		ev, err := nostr.ParseEvent(env.arr[2])
		if err != nil {
			c.rejected(RejectMalformed, err)
			continue
		}
		evs[i] = ev
	}
	sigOK := batch.Events(evs) // false for the nil ones
	for i, ev := range evs {
		s := subs[i]
		if ev == nil {
			continue
		}
		switch {
		case !ev.CheckID():
			c.rejected(RejectBadID, &nostr.CheckError{ID: ev.ID, Reason: "id is not the hash of the event"})
			continue
		case !sigOK[i]:
			c.rejected(RejectBadSignature, &nostr.CheckError{ID: ev.ID, Reason: "bad signature"})
			continue
		case !s.filters.Match(ev):
			c.rejected(RejectUnrequested, fmt.Errorf("event %s kind %d", ev.ID, ev.Kind))
			continue
		}
		c.Delivering.Store(true)
		t0 := time.Now()
		s.deliver(ev)
		c.blocked.Add(int64(time.Since(t0)))
		c.Delivering.Store(false)
	}
}

func (c *Conn) rejected(reason string, err error) {
	c.Rejected.Add(1)
	c.Log.Debug("relay: event rejected", "relay", c.URL, "reason", reason, "err", err)
	if c.reject != nil {
		c.reject(reason)
	}
}

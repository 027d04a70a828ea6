package relayd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// Flow control per connection (issue 38 item 2). khatru v0.19.1 reads a
// connection's messages as fast as they come and starts one goroutine for
// each, whose answer waits on the connection's write lock; a client that
// writes small REQs and does not read its answers made one connection
// hold gigabytes. Its rate limits answer each excess message, which only
// adds to the queue. So the guard, which sees each client message before
// khatru reads it (clientFrames) and each answer on its way out
// (negErrConn), keeps khatru from reading a connection's next message
// while MaxInFlight of its messages are unanswered: a client that does
// not read its answers stops being read, as TCP would have it. REQs past
// MaxSubscriptions open subscriptions get CLOSED "blocked: ..." from the
// guard, khatru never seeing them, and a connection that keeps getting
// such refusals or "rate-limited:" answers is closed rather than answered
// again and again (khatru keeps a listener per filter of every REQ until the
// client closes it, even for a reused subscription id).
type flow struct {
	mu       sync.Mutex
	inflight int            // messages passed to khatru and not answered
	subs     map[string]int // subscription id -> REQs passed under it
	nsubs    int            // their sum
	strikes  int            // "rate-limited:" answers since the last other answer
	closing  bool           // struck out: nothing more is read or answered
	wake     chan struct{}  // an answer came (buffered 1)
	closed   chan struct{}  // the connection closed
}

func newFlow() *flow {
	return &flow{subs: map[string]int{}, wake: make(chan struct{}, 1), closed: make(chan struct{})}
}

// flowStall is how long a connection may keep MaxInFlight messages
// unanswered (its client reading nothing, or sending messages khatru
// never answers) before it is closed.
const flowStall = 30 * time.Second

// answerLabels are what khatru writes in answer to one client message:
// EVENT and AUTH get OK, REQ EOSE or CLOSED, COUNT COUNT or CLOSED, the
// NIP-77 messages NEG-MSG or NEG-ERROR, and anything it cannot parse a
// NOTICE. CLOSE and NEG-CLOSE get nothing and are not counted.
var answerLabels = map[string]bool{"OK": true, "EOSE": true, "CLOSED": true, "COUNT": true,
	"NEG-MSG": true, "NEG-ERROR": true, "NEG-ERR": true, "NOTICE": true}

// envelope reads a client message's label and, when the second element is
// a string, its subscription id; ok is false when it is not a JSON array
// starting with a string.
func envelope(payload []byte) (label, sub string, ok bool) {
	var msg []json.RawMessage
	if err := json.Unmarshal(payload, &msg); err != nil || len(msg) == 0 {
		return "", "", false
	}
	if json.Unmarshal(msg[0], &label) != nil {
		return "", "", false
	}
	if len(msg) > 1 {
		_ = json.Unmarshal(msg[1], &sub)
	}
	return label, sub, true
}

// admitMessage applies the flow bounds to one client message before khatru
// reads it, waiting while the connection has MaxInFlight messages
// unanswered; false drops it (a REQ past MaxSubscriptions, which the guard
// answers itself, or a connection closed meanwhile).
func (c *guardedConn) admitMessage(payload []byte) bool {
	lim := c.g.lim
	c.fl.mu.Lock()
	closing := c.fl.closing
	c.fl.mu.Unlock()
	if closing {
		return false // struck out: closed as soon as Close runs
	}
	label, sub, _ := envelope(payload)
	switch label {
	case "CLOSE":
		c.fl.mu.Lock()
		c.fl.nsubs -= c.fl.subs[sub]
		delete(c.fl.subs, sub)
		c.fl.mu.Unlock()
		return true
	case "NEG-CLOSE":
		return true
	case "REQ":
		if max := lim.MaxSubscriptions; max > 0 {
			c.fl.mu.Lock()
			full := c.fl.nsubs >= max
			if !full {
				c.fl.subs[sub]++
				c.fl.nsubs++
			}
			c.fl.mu.Unlock()
			if full {
				c.g.subRefused.Add(1)
				c.strike(true)
				msg, _ := json.Marshal([]string{"CLOSED", sub, fmt.Sprintf("blocked: %d subscriptions are open on this connection, the most allowed (max_subscriptions); CLOSE one first", max)})
				c.inject(msg)
				return false
			}
		}
	}
	return c.room()
}

// room waits until the connection has fewer than MaxInFlight messages
// unanswered and counts one more; false when the connection closed or
// stalled (then it is closed).
func (c *guardedConn) room() bool {
	max := c.g.lim.MaxInFlight
	if max <= 0 {
		return true
	}
	var stall <-chan time.Time
	for {
		c.fl.mu.Lock()
		if c.fl.inflight < max {
			c.fl.inflight++
			c.fl.mu.Unlock()
			return true
		}
		c.fl.mu.Unlock()
		if stall == nil {
			t := time.NewTimer(flowStall)
			defer t.Stop()
			stall = t.C
		}
		select {
		case <-c.fl.wake:
		case <-c.fl.closed:
			return false
		case <-stall:
			c.g.stalled.Add(1)
			go c.Close()
			return false
		}
	}
}

// answered follows one message khatru writes (the start of its first
// frame): an answer makes room for the next client message, a
// "rate-limited:" answer is a strike and MaxStrikes of them in a row close
// the connection, and a CLOSED ends the REQ it names.
func (c *guardedConn) answered(start []byte) {
	label, rest, ok := frameLabel(start)
	if !ok || !answerLabels[label] {
		return
	}
	limited := (label == "OK" || label == "CLOSED") && bytes.Contains(rest, []byte(`"rate-limited:`))
	c.fl.mu.Lock()
	if c.fl.inflight > 0 {
		c.fl.inflight--
	}
	if label == "CLOSED" {
		if sub, ok := quoted(rest); ok && c.fl.subs[sub] > 0 {
			c.fl.subs[sub]--
			c.fl.nsubs--
			if c.fl.subs[sub] == 0 {
				delete(c.fl.subs, sub)
			}
		}
	}
	c.fl.mu.Unlock()
	select {
	case c.fl.wake <- struct{}{}:
	default:
	}
	c.strike(limited)
}

// strike counts a refusal for excess (a "rate-limited:" answer, a REQ
// past MaxSubscriptions) or, with false, an answer that is none, which
// ends the run; MaxStrikes refusals in a row close the connection.
func (c *guardedConn) strike(refused bool) {
	c.fl.mu.Lock()
	if refused {
		c.fl.strikes++
	} else {
		c.fl.strikes = 0
	}
	strikes := c.fl.strikes
	max := c.g.lim.MaxStrikes
	out := max > 0 && refused && strikes == max
	if out {
		c.fl.closing = true
	}
	c.fl.mu.Unlock()
	if out {
		c.g.struckOut.Add(1)
		go c.Close() // not under negErrConn's lock, where answered runs
	}
}

// frameLabel reads `["LABEL",` at the start of a message as khatru writes
// it (no whitespace) and returns the label and what follows the comma.
func frameLabel(start []byte) (string, []byte, bool) {
	if !bytes.HasPrefix(start, []byte(`["`)) {
		return "", nil, false
	}
	rest := start[2:]
	end := bytes.IndexByte(rest, '"')
	if end < 0 || end+1 >= len(rest) || rest[end+1] != ',' {
		return "", nil, false
	}
	return string(rest[:end]), rest[end+2:], true
}

// quoted reads the JSON string at the start of b when it has no escapes.
func quoted(b []byte) (string, bool) {
	if len(b) < 2 || b[0] != '"' {
		return "", false
	}
	end := bytes.IndexByte(b[1:], '"')
	if end < 0 || bytes.IndexByte(b[1:1+end], '\\') >= 0 {
		return "", false
	}
	return string(b[1 : 1+end]), true
}

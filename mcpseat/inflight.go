package mcpseat

import (
	"bytes"
	"encoding/json"
	"sync"
	"time"
)

// drainWait bounds how long `vesper mcp` keeps answering after its client
// closed stdin: long enough for any tool but a long poll (several relay
// round trips of the seat's timeout), short enough that a client that
// stopped reading does not keep the process for long.
const drainWait = 30 * time.Second

// inFlight follows the client's calls (requests with an id) from the line
// that asks to the line that answers, so that an end of input waits for
// the answers (issue 38 item 5: the SDK ended the session at once and
// dropped the reply to a call still running, 4 runs in 10).
type inFlight struct {
	mu      sync.Mutex
	pending map[string]bool
	done    chan struct{} // closed and replaced when pending empties
}

func newInFlight() *inFlight {
	return &inFlight{pending: map[string]bool{}, done: make(chan struct{})}
}

// idKey is a message's id as one spelling (numbers as written), "" when
// it has none.
func idKey(line []byte) string {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
	}
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	if d.Decode(&m) != nil || len(m.ID) == 0 {
		return ""
	}
	var v any
	d = json.NewDecoder(bytes.NewReader(m.ID))
	d.UseNumber()
	if d.Decode(&v) != nil || v == nil {
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// longPolls are the tools whose answer may take as long as the client
// asked (wait_turn, up to maxWait): a client that closed its input gave
// up on them, so the end of input does not wait for one.
var longPolls = map[string]bool{"wait_turn": true}

// asked counts a call the client sent, unless it is a long poll.
func (c *inFlight) asked(line []byte) {
	var m struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &m) == nil && m.Method == "tools/call" && longPolls[m.Params.Name] {
		return
	}
	if k := idKey(line); k != "" {
		c.mu.Lock()
		c.pending[k] = true
		c.mu.Unlock()
	}
}

// answered uncounts the call a line written to the client answers (a
// response: an id and no method).
func (c *inFlight) answered(line []byte) {
	if bytes.Contains(line, []byte(`"method"`)) {
		var m struct {
			Method *string `json:"method"`
		}
		if json.Unmarshal(bytes.TrimSpace(line), &m) == nil && m.Method != nil {
			return // a request or notification of the server's own
		}
	}
	c.done1(idKey(bytes.TrimSpace(line)))
}

// done1 uncounts the call k.
func (c *inFlight) done1(k string) {
	if k == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending[k] {
		delete(c.pending, k)
		if len(c.pending) == 0 {
			close(c.done)
			c.done = make(chan struct{})
		}
	}
}

// cancelled uncounts the call that a notifications/cancelled names (its
// params' requestId): the server sends no answer to it.
func (c *inFlight) cancelled(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.RequestID) == 0 {
		return
	}
	c.done1(idKey([]byte(`{"id":` + string(p.RequestID) + `}`)))
}

// drain waits until every call is answered, or for at most max.
func (c *inFlight) drain(max time.Duration) {
	t := time.NewTimer(max)
	defer t.Stop()
	for {
		c.mu.Lock()
		if len(c.pending) == 0 {
			c.mu.Unlock()
			return
		}
		done := c.done
		c.mu.Unlock()
		select {
		case <-done:
		case <-t.C:
			return
		}
	}
}

package mcpseat

import (
	"bytes"
	"encoding/json"
	"sync"
	"time"
)

// drainWait bounds how long `vesper mcp` keeps answering after its client
// closed stdin: long enough for any tool but a long wait.
const drainWait = 2 * time.Minute

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

// asked counts a call the client sent.
func (c *inFlight) asked(line []byte) {
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
	k := idKey(bytes.TrimSpace(line))
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

package testrelay

import (
	"encoding/json"
	"fmt"

	gn "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip77/negentropy"
	"github.com/nbd-wtf/go-nostr/nip77/negentropy/storage/vector"
)

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

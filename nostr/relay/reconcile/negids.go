package reconcile

import (
	"strings"
	"sync"

	"github.com/nbd-wtf/go-nostr/nip77/negentropy"

	"vesper/nostr"
)

// negIDs takes the ids negentropy reports as it reconciles: those the
// relay has and the local set lacks (need, each once) and those only the
// local set has (counted). Reconcile sends on its channels as it goes, so
// they are drained while it runs; negentropy closes both when it is done.
type negIDs struct {
	budget *relayBudget // each id kept in need takes one of its ids
	mu     sync.Mutex
	need   []string
	seen   map[string]bool
	had    map[string]bool
	wg     sync.WaitGroup
	stop   chan struct{}
}

func collectIDs(neg *negentropy.Negentropy, b *relayBudget) *negIDs {
	c := &negIDs{budget: b, seen: map[string]bool{}, had: map[string]bool{}, stop: make(chan struct{})}
	c.wg.Go(func() { c.drain(neg.HaveNots, true) })
	c.wg.Go(func() { c.drain(neg.Haves, false) })
	return c
}

func (c *negIDs) drain(ch <-chan string, need bool) {
	for {
		select {
		case id, ok := <-ch:
			if !ok {
				return
			}
			c.add(strings.ToLower(id), need)
		case <-c.stop:
			return
		}
	}
}

func (c *negIDs) add(id string, need bool) {
	if !nostr.IsLowerHex(id, 64) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case need && !c.seen[id]:
		if !c.budget.takeID() {
			return // over budget: dropped, and the session ends
		}
		c.seen[id] = true
		c.need = append(c.need, id)
	case !need:
		c.had[id] = true
	}
}

// end stops the drains of a session that did not finish (negentropy
// then never closes its channels) and waits for them.
func (c *negIDs) end(finished bool) {
	if !finished {
		close(c.stop)
	}
	c.wg.Wait()
}

func (c *negIDs) result() (need []string, haves int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.need, len(c.had)
}

package relay

import (
	"slices"
	"time"

	"vesper/nostr/relay/internal/wire"
)

// Relays added at run time (NIP-65's outbox model): a player's events are
// on the relays its relay list names for writing, which the daemon may not
// be configured with. Follow adds such relays to a running client, within
// Config.MaxRelays; their events come out of the same gate (strict parse,
// id, signature, the filter asked for) onto the same out, with their own
// Relay and cursor. Nothing is published to them by Publish.

// relayState is what the client knows of one relay now.
type relayState struct {
	URL string `json:"url"`
	// Configured: in Config.Relays; otherwise added by Follow.
	Configured bool `json:"configured"`
	Connected  bool `json:"connected"`
	// Failures is the failed sessions in a row (0 after a healthy one).
	Failures int `json:"failures"`
	// Aside: added by Follow and failed Config.AsideAfter sessions in a
	// row, so retried only after the long backoff.
	Aside bool `json:"aside"`
	// RetryAt is the next attempt of a relay not connected (zero while
	// connected or before its first attempt).
	RetryAt   time.Time `json:"retry_at,omitzero"`
	LastError string    `json:"last_error,omitempty"`
}

// Follow adds relays to those the client reads, in order, and returns
// the ones it added: relays already read are left as they are, and
// none is added once Config.MaxRelays relays are read (those left
// out are logged in one line per call). While Run runs, an added relay is read at once;
// before, it starts with Run. It does not hold Ready back.
func (c *Client) Follow(urls ...string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.followLocked(wire.NormalizeURLs(urls))
}

func (c *Client) followLocked(urls []string) []string {
	var added, left []string
	for _, u := range urls {
		if slices.Contains(c.relays, u) {
			continue
		}
		if len(c.relays) >= c.cfg.MaxRelays {
			left = append(left, u)
			continue
		}
		c.relays = append(c.relays, u)
		c.followed[u] = true
		c.addRelayLocked(u, false)
		if c.run != nil {
			c.startLocked(u)
		}
		added = append(added, u)
	}
	if len(left) > 0 {
		// One line per call, however many are left out: a stranger's
		// thousands of relay lists must not flood the log (issue 30).
		c.cfg.Logger.Warn("relay: not following relays past the cap", "max_relays", c.cfg.MaxRelays,
			"left_out", len(left), "first", left[0])
	}
	return added
}

func (c *Client) unfollowLocked(urls []string) {
	for _, u := range urls {
		if !c.followed[u] {
			continue
		}
		delete(c.followed, u)
		c.relays = slices.DeleteFunc(c.relays, func(v string) bool { return v == u })
		delete(c.notify, u)
		delete(c.states, u)
		delete(c.settled, u)
		if w := c.workers[u]; w != nil {
			w.cancel()
			c.stopping[u] = w.done
			delete(c.workers, u)
		}
		c.live.set(u, nil, false)
	}
}

// SetFollowed makes urls the relays followed beyond Config.Relays: the
// ones Follow added that are not in urls are unfollowed, the others kept,
// and the new ones added in order within Config.MaxRelays (so put the
// most wanted first: follow.OutboxRelays does). It returns the relays followed
// beyond Config.Relays now, in order.
func (c *Client) SetFollowed(urls []string) []string {
	want := wire.NormalizeURLs(urls)
	c.mu.Lock()
	defer c.mu.Unlock()
	var drop []string
	for u := range c.followed {
		if !slices.Contains(want, u) {
			drop = append(drop, u)
		}
	}
	c.unfollowLocked(drop)
	c.followLocked(want)
	var now []string
	for _, u := range c.relays {
		if c.followed[u] {
			now = append(now, u)
		}
	}
	return now
}

// relayStates describes every relay read now, in the order of Relays.
func (c *Client) relayStates() []relayState {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]relayState, 0, len(c.relays))
	for _, u := range c.relays {
		if st := c.states[u]; st != nil {
			out = append(out, *st)
		}
	}
	return out
}

// noteUp records that url's session has connected.
func (c *Client) noteUp(url string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st := c.states[url]; st != nil {
		st.Connected, st.RetryAt = true, time.Time{}
	}
}

// noteDown records the end of a session of url and when the next starts.
func (c *Client) noteDown(url string, err error, failures int, aside bool, retry time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.states[url]
	if st == nil {
		return // unfollowed meanwhile
	}
	st.Connected, st.Failures, st.Aside, st.RetryAt = false, failures, aside, retry
	if err != nil {
		st.LastError = wire.Clip(err.Error())
	}
}

// notifyOf is url's channel for new watched authors.
func (c *Client) notifyOf(url string) chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := c.notify[url]
	if ch == nil {
		ch = make(chan struct{}, 1) // unfollowed: the session ends soon
	}
	return ch
}

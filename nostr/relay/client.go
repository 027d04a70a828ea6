package relay

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"

	"vesper/nostr/relay/internal/wire"
)

// Client reads the game kinds and watched authors' profiles from every
// configured relay, and from the relays Follow adds, each relay on its own
// goroutine and connection.
type Client struct {
	cfg        Config
	configured []string // Config.Relays, normalised
	connected  atomic.Int64
	running    atomic.Bool
	// live is each session's connection, on which Publish sends.
	live liveConns

	mu       sync.Mutex
	relays   []string        // read: configured, then followed, in order
	followed map[string]bool // relays added by Follow
	authors  map[string]struct{}
	notify   map[string]chan struct{} // per relay: the author set grew
	settled  map[string]bool          // per relay: first backfill done or given up
	nSettled int                      // configured relays settled
	ready    chan struct{}            // closed once every configured relay has settled
	states   map[string]*relayState
	run      *runState                // set while Run runs
	workers  map[string]*worker       // per relay: its goroutine while Run runs
	stopping map[string]chan struct{} // per relay: a goroutine told to stop, until it has
}

// runState is what Run shares with relays added while it runs.
type runState struct {
	ctx context.Context
	out chan<- Received
	wg  *sync.WaitGroup
}

type worker struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// firstTries is how many failed sessions in a row settle a relay that has
// not completed a backfill yet: a relay that is down must not hold Ready
// back for ever, one that drops a connection now and then should not
// release it early.
const firstTries = 3

// New makes a client; Run starts it.
func New(cfg Config) *Client {
	cfg = cfg.withDefaults()
	c := &Client{
		cfg:        cfg,
		configured: wire.NormalizeURLs(cfg.Relays),
		followed:   make(map[string]bool),
		authors:    make(map[string]struct{}),
		notify:     make(map[string]chan struct{}),
		settled:    make(map[string]bool),
		ready:      make(chan struct{}),
		states:     make(map[string]*relayState),
		workers:    make(map[string]*worker),
		stopping:   make(map[string]chan struct{}),
	}
	c.relays = slices.Clone(c.configured)
	for _, u := range c.relays {
		c.addRelayLocked(u, true)
	}
	if len(c.configured) == 0 {
		close(c.ready)
	}
	return c
}

// addRelayLocked sets up what a relay to read needs.
func (c *Client) addRelayLocked(u string, configured bool) {
	c.notify[u] = make(chan struct{}, 1)
	c.states[u] = &relayState{URL: u, Configured: configured}
	// Until Run's first session at u has dialed, a publication waits for
	// it instead of failing.
	c.live.set(u, nil, true)
}

// Ready is closed once every relay of Config.Relays has settled its first
// backfill since Run started: completed it (every event it held has been
// sent to out), failed firstTries sessions in a row, or used its budget
// (BackfillEvents, a session's BackfillPages, or BackfillBudget since Run
// started). Whoever acts on what the relays hold (the daemon's rulings and
// claims) waits for it, so as not to act on half a match after a restart;
// the budgets make sure that one bad relay cannot hold that back for long.
// Relays added by Follow never hold it back.
func (c *Client) Ready() <-chan struct{} { return c.ready }

// settle marks url's first backfill as done (or given up), reporting
// whether it was not already.
func (c *Client) settle(url string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.settled[url] {
		return false
	}
	c.settled[url] = true
	if slices.Contains(c.configured, url) {
		if c.nSettled++; c.nSettled == len(c.configured) {
			close(c.ready)
		}
	}
	return true
}

// Relays lists the normalised relay URLs read now, Config.Relays first
// (the Relay of every Received and the key of every cursor).
func (c *Client) Relays() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.relays)
}

// Connected is the number of relays connected now.
func (c *Client) Connected() int { return int(c.connected.Load()) }

// Run reads every relay until ctx is done, sending each checked event to
// out; relays added by Follow meanwhile are read too. It returns nil
// then, once every relay's goroutine has returned, or an error at once if
// there is no relay or Run is already running. A relay that fails is
// retried with jittered exponential backoff on its own goroutine; the
// others go on.
func (c *Client) Run(ctx context.Context, out chan<- Received) error {
	c.mu.Lock()
	if len(c.relays) == 0 {
		c.mu.Unlock()
		return errors.New("relay: no relays configured")
	}
	if !c.running.CompareAndSwap(false, true) {
		c.mu.Unlock()
		return errors.New("relay: client already running")
	}
	defer c.running.Store(false)
	var wg sync.WaitGroup
	c.run = &runState{ctx: ctx, out: out, wg: &wg}
	for _, u := range c.relays {
		c.startLocked(u)
	}
	c.mu.Unlock()
	<-ctx.Done()
	// No relay starts after this: Follow adds to the WaitGroup only while
	// run is set, so nothing is added once Wait may have begun.
	c.mu.Lock()
	c.run = nil
	c.mu.Unlock()
	wg.Wait()
	c.mu.Lock()
	clear(c.workers)
	clear(c.stopping)
	c.mu.Unlock()
	return nil
}

// startLocked starts url's goroutine under Run. If an earlier goroutine
// for url is still stopping (unfollowed, then followed again), the new
// one waits for it, so that two sessions never share url's slot.
func (c *Client) startLocked(url string) {
	rs := c.run
	rctx, cancel := context.WithCancel(rs.ctx)
	w := &worker{cancel: cancel, done: make(chan struct{})}
	prev := c.stopping[url]
	delete(c.stopping, url)
	c.workers[url] = w
	rs.wg.Go(func() {
		defer close(w.done)
		defer cancel()
		if prev != nil {
			select {
			case <-prev:
			case <-rctx.Done():
				return
			}
		}
		c.read(rctx, url, rs.out)
	})
}

// first counts a relay's first backfill, across its sessions, against
// Config.BackfillEvents.
type first struct {
	events int
}

// isSettled reports whether url's first backfill is done or given up.
func (c *Client) isSettled(url string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.settled[url]
}

package relay

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	gn "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip11"

	"vesper/nostr"
)

// Received is one checked event and the relay that sent it. The same event
// from several relays is delivered once per relay; the store dedupes.
type Received struct {
	Event *nostr.Event
	Relay string
	// Raw is the event as JSON (nostr.MarshalEvent of the strictly parsed
	// event: compact, canonical escaping, the same bytes from every relay).
	Raw []byte
	// TooLarge flags an event whose canonical serialization exceeds
	// nostr.MaxEventSize. It is delivered anyway: the fold must see it to
	// ignore it (PROTOCOL.md section 1).
	TooLarge bool
	// Cursor, in a Received without an Event, is a cursor mark (sent only
	// with Config.MarkCursors): every event Relay held at that unix time was
	// sent on out before this mark.
	Cursor int64
}

// Config configures a Client. Zero durations and limits take the defaults
// in brackets.
type Config struct {
	Relays  []string
	Cursors Cursors // nil: in memory, so every start backfills everything
	// MarkCursors sends each cursor move on out as a mark behind the events
	// it covers, instead of writing Cursors: a consumer that saves the mark
	// once the events before it are stored never moves a cursor past an
	// event a crash lost on the way. Cursors is then only read.
	MarkCursors bool
	Key         nostr.SecretKey // optional: answers NIP-42 AUTH when a relay asks
	// SafetyMargin is subtracted from the cursor when backfilling, for
	// events that reach a relay late or carry a clock-skewed created_at
	// [15m].
	SafetyMargin time.Duration
	// PageLimit is the "limit" of each backfill query; a relay's NIP-11
	// max_limit lowers it [500].
	PageLimit int
	Logger    *slog.Logger // [discard]
	// OnReject is called for every event a relay sent that is not delivered,
	// with one of the Reject* reasons (for metrics).
	OnReject func(relay, reason string)

	MinBackoff   time.Duration // first reconnect delay [1s]
	MaxBackoff   time.Duration // reconnect delay cap [5m]
	PingInterval time.Duration // liveness check and cursor save period [30s]
	QueryTimeout time.Duration // wait for one EOSE [30s]
	DialTimeout  time.Duration // websocket and NIP-11 connect [10s]
	// Now is the clock for cursors [time.Now].
	Now func() time.Time
}

func (cfg Config) withDefaults() Config {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&cfg.SafetyMargin, 15*time.Minute)
	def(&cfg.MinBackoff, time.Second)
	def(&cfg.MaxBackoff, 5*time.Minute)
	def(&cfg.PingInterval, 30*time.Second)
	def(&cfg.QueryTimeout, 30*time.Second)
	def(&cfg.DialTimeout, 10*time.Second)
	if cfg.PageLimit <= 0 {
		cfg.PageLimit = 500
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Cursors == nil {
		cfg.Cursors = NewMemCursors()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return cfg
}

// authorsPerFilter bounds the authors list of one filter; relays limit
// message sizes.
const authorsPerFilter = 250

// Client follows the game kinds and watched profiles on every configured
// relay, each relay on its own goroutine and connection.
type Client struct {
	cfg       Config
	relays    []string
	connected atomic.Int64
	running   atomic.Bool

	mu      sync.Mutex
	authors map[string]struct{}
	notify  map[string]chan struct{} // per relay: the author set grew
	settled map[string]bool          // per relay: first backfill done or given up
	ready   chan struct{}            // closed once every relay has settled
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
		cfg:     cfg,
		relays:  normalizeURLs(cfg.Relays),
		authors: make(map[string]struct{}),
		notify:  make(map[string]chan struct{}),
		settled: make(map[string]bool),
		ready:   make(chan struct{}),
	}
	for _, u := range c.relays {
		c.notify[u] = make(chan struct{}, 1)
	}
	if len(c.relays) == 0 {
		close(c.ready)
	}
	return c
}

// Ready is closed once every relay has completed its first backfill since
// Run started (every event it held has been sent to out), or failed
// firstTries sessions in a row before completing one. Whoever acts on what
// the relays hold (the daemon's rulings and claims) waits for it, so as not
// to act on half a match after a restart.
func (c *Client) Ready() <-chan struct{} { return c.ready }

// settle marks url's first backfill as done (or given up).
func (c *Client) settle(url string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.settled[url] {
		return
	}
	c.settled[url] = true
	if len(c.settled) == len(c.relays) {
		close(c.ready)
	}
}

// normalizeURLs normalises and dedupes relay URLs, dropping unparseable ones.
func normalizeURLs(urls []string) []string {
	var out []string
	for _, u := range urls {
		if n := gn.NormalizeURL(u); n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// Relays lists the normalised relay URLs (the Relay of every Received and
// the key of every cursor).
func (c *Client) Relays() []string { return slices.Clone(c.relays) }

// Connected is the number of relays connected now.
func (c *Client) Connected() int { return int(c.connected.Load()) }

// WatchAuthors adds pubkeys (64 lowercase hex; others are ignored) whose
// kind-0 profiles the client follows. New authors' profiles are fetched at
// once on every connected relay.
func (c *Client) WatchAuthors(pubkeys ...string) {
	c.mu.Lock()
	added := false
	for _, pk := range pubkeys {
		if _, ok := c.authors[pk]; !ok && nostr.IsLowerHex(pk, 64) {
			c.authors[pk] = struct{}{}
			added = true
		}
	}
	c.mu.Unlock()
	if !added {
		return
	}
	for _, ch := range c.notify {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

func (c *Client) watched() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.authors))
	for pk := range c.authors {
		out = append(out, pk)
	}
	slices.Sort(out)
	return out
}

// Run follows every relay until ctx is done, sending each checked event to
// out. It returns nil then, or an error at once if there is no relay or Run
// is already running. A relay that fails is retried with jittered
// exponential backoff on its own goroutine; the others go on.
func (c *Client) Run(ctx context.Context, out chan<- Received) error {
	if len(c.relays) == 0 {
		return errors.New("relay: no relays configured")
	}
	if !c.running.CompareAndSwap(false, true) {
		return errors.New("relay: client already running")
	}
	defer c.running.Store(false)
	var wg sync.WaitGroup
	for _, u := range c.relays {
		wg.Go(func() { c.follow(ctx, u, out) })
	}
	wg.Wait()
	return nil
}

// follow keeps one relay connected until ctx is done.
func (c *Client) follow(ctx context.Context, url string, out chan<- Received) {
	log := c.cfg.Logger.With("relay", url)
	bo := backoff{min: c.cfg.MinBackoff, max: c.cfg.MaxBackoff}
	failed := 0
	for ctx.Err() == nil {
		healthy, err := c.session(ctx, url, out)
		if ctx.Err() != nil {
			return
		}
		if healthy {
			bo.reset()
			failed = 0
		} else if failed++; failed >= firstTries {
			c.settle(url)
		}
		wait := bo.next()
		if errors.Is(err, ErrRateLimited) {
			wait += bo.next() // and the step after: the relay asked us to slow down
		}
		log.Warn("relay: disconnected", "err", err, "retry_in", wait.Round(time.Millisecond))
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// session is one connection: live subscription, backfill from the cursor,
// then liveness pings and cursor saves until the connection ends. healthy
// reports that the backfill completed, which resets the backoff.
func (c *Client) session(ctx context.Context, url string, out chan<- Received) (healthy bool, err error) {
	log := c.cfg.Logger.With("relay", url)
	info := fetchInfo(ctx, url, c.cfg.DialTimeout)
	dctx, cancel := context.WithTimeout(ctx, c.cfg.DialTimeout)
	cn, err := dial(dctx, url, log, func(reason string) {
		if c.cfg.OnReject != nil {
			c.cfg.OnReject(url, reason)
		}
	})
	cancel()
	if err != nil {
		return false, err
	}
	defer cn.close(ErrClosed)
	stop := context.AfterFunc(ctx, func() { cn.close(context.Cause(ctx)) })
	defer stop()
	c.connected.Add(1)
	defer c.connected.Add(-1)

	deliver := func(ev *gn.Event) {
		r := Received{Event: ev, Relay: url, Raw: nostr.MarshalEvent(ev), TooLarge: nostr.TooLarge(ev)}
		select {
		case out <- r:
		case <-ctx.Done():
		}
	}
	p := &pager{conn: cn, key: c.cfg.Key, limit: c.cfg.PageLimit, timeout: c.cfg.QueryTimeout}
	if info != nil && info.Limitation != nil && info.Limitation.MaxLimit > 0 && info.Limitation.MaxLimit <= p.limit {
		p.limit, p.capKnown = info.Limitation.MaxLimit, true
	}

	authors := c.watched()
	live, err := c.openLive(ctx, cn, authors, deliver)
	if err != nil {
		return false, err
	}
	start := c.cfg.Now().Unix()
	cursor, err := c.cfg.Cursors.Cursor(ctx, url)
	if err != nil {
		return false, err
	}
	since := gn.Timestamp(max(0, cursor-int64(c.cfg.SafetyMargin/time.Second)))
	n := 0
	for _, f := range gameFilters(authors) {
		// Profiles are replaceable, so a relay holds one per author: the
		// latest of every watched author is fetched whatever the cursor,
		// which also covers authors watched while this relay was away.
		if !slices.Equal(f.Kinds, []int{nostr.KindProfile}) {
			f.Since = &since
		}
		got, err := p.run(ctx, f, 0, deliver)
		n += got
		if err != nil {
			return false, err
		}
	}
	log.Info("relay: backfilled", "since", int64(since), "events", n)
	c.settle(url)
	// The cursor may move to a time t once every event the relay had
	// stored by t has been delivered and taken from out: here, the start
	// of the live subscription, and later the time of each ping.
	cursor = c.saveCursor(ctx, url, cursor, start, out)

	ping := time.NewTicker(c.cfg.PingInterval)
	defer ping.Stop()
	for {
		select {
		case <-ctx.Done():
			return true, ctx.Err()
		case <-cn.ctx.Done():
			return true, cn.err()
		case reason := <-live.closed:
			return true, closedError(url, reason)
		case <-c.notify[url]:
			now := c.watched()
			fresh := newAuthors(authors, now)
			if len(fresh) == 0 {
				continue
			}
			next, err := c.openLive(ctx, cn, now, deliver)
			if err != nil {
				return true, err
			}
			cn.unsubscribe(live)
			live, authors = next, now
			for _, f := range profileFilters(fresh) {
				if _, err := p.run(ctx, f, 0, deliver); err != nil {
					return true, err
				}
			}
		case <-ping.C:
			if cn.delivering.Load() {
				// Events are flowing but the consumer is behind: the reader
				// cannot take a pong now, and the connection is plainly alive.
				continue
			}
			t := c.cfg.Now().Unix()
			pctx, cancel := context.WithTimeout(ctx, c.cfg.QueryTimeout)
			err := cn.ping(pctx)
			cancel()
			if err != nil {
				if cn.ctx.Err() == nil && cn.delivering.Load() {
					continue // the pong is queued behind a slow consumer
				}
				return true, err
			}
			// Frames arrive in order, so every event the relay sent before
			// its pong has been delivered by now.
			cursor = c.saveCursor(ctx, url, cursor, t, out)
		}
	}
}

// openLive subscribes to new events only ("limit":0); the backfill fetches
// the stored ones. It waits for EOSE so that the backfill that follows
// overlaps the live stream instead of leaving a gap.
func (c *Client) openLive(ctx context.Context, cn *conn, authors []string, deliver func(*gn.Event)) (*sub, error) {
	filters := gameFilters(authors)
	for i := range filters {
		filters[i].LimitZero = true
	}
	for attempt := 0; ; attempt++ {
		s, err := cn.subscribe(filters, deliver)
		if err != nil {
			return nil, err
		}
		err = cn.waitEOSE(ctx, s, c.cfg.QueryTimeout)
		switch {
		case err == nil:
			return s, nil
		case errors.Is(err, ErrAuthRequired) && attempt == 0:
			if aerr := cn.auth(ctx, c.cfg.Key); aerr != nil {
				return nil, errors.Join(err, aerr)
			}
		case errors.Is(err, ErrClosed), ctx.Err() != nil:
			return nil, err
		default:
			var ce *ClosedError
			if errors.As(err, &ce) {
				return nil, err
			}
			// No EOSE in time: some relays never send one for "limit":0.
			// The subscription is open; go on.
			c.cfg.Logger.Warn("relay: live subscription without EOSE", "relay", cn.url, "err", err)
			return s, nil
		}
	}
}

// saveCursor moves the cursor to t, but only when the consumer has taken
// everything from out: an event still in a buffered out would be lost for
// good by a crash if the cursor had already moved past it (with
// MarkCursors, the consumer moves it). It returns the cursor as it now
// stands.
func (c *Client) saveCursor(ctx context.Context, url string, old, t int64, out chan<- Received) int64 {
	if t <= old {
		return old
	}
	if c.cfg.MarkCursors {
		// out is in order, so the mark follows every event sent before it.
		select {
		case out <- Received{Relay: url, Cursor: t}:
			return t
		case <-ctx.Done():
			return old
		}
	}
	if len(out) > 0 {
		return old
	}
	if err := c.cfg.Cursors.SetCursor(ctx, url, t); err != nil {
		if ctx.Err() == nil {
			c.cfg.Logger.Error("relay: saving cursor", "relay", url, "err", err)
		}
		return old
	}
	return t
}

// gameFilters are the subscription of PROTOCOL.md: challenges by their
// topic tag, the other game kinds by kind, and the watched profiles.
func gameFilters(authors []string) []gn.Filter {
	fs := []gn.Filter{
		{Kinds: []int{nostr.KindChallenge}, Tags: gn.TagMap{nostr.TopicTag: {nostr.GamesTopic}}},
		{Kinds: matchKinds()},
	}
	return append(fs, profileFilters(authors)...)
}

func matchKinds() []int {
	var ks []int
	for _, k := range nostr.GameKinds() {
		if nostr.IsMatchKind(k) {
			ks = append(ks, k)
		}
	}
	return ks
}

func profileFilters(authors []string) []gn.Filter {
	var fs []gn.Filter
	for chunk := range slices.Chunk(authors, authorsPerFilter) {
		fs = append(fs, gn.Filter{Kinds: []int{nostr.KindProfile}, Authors: slices.Clone(chunk)})
	}
	return fs
}

func newAuthors(old, now []string) []string {
	var fresh []string
	for _, pk := range now {
		if _, found := slices.BinarySearch(old, pk); !found {
			fresh = append(fresh, pk)
		}
	}
	return fresh
}

// fetchInfo reads the relay's NIP-11 document; nil when it has none.
func fetchInfo(ctx context.Context, url string, timeout time.Duration) *nip11.RelayInformationDocument {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	info, err := nip11.Fetch(ctx, url)
	if err != nil {
		return nil
	}
	return &info
}

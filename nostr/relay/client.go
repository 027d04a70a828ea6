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

	"vesper/internal/netguard"
	"vesper/nostr"
	"vesper/nostr/relay/internal/wire"
	"vesper/nostr/relay/limits"
)

// Received is one checked event and the relay that sent it (wire.Received:
// the client and reconcile.Sync send the same values on the same channel).
type Received = wire.Received

// Config configures a Client. Zero durations and limits take the defaults
// in brackets.
type Config struct {
	// Relays are the relays the client always follows and publishes to;
	// Follow adds more at run time, to read from.
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
	// OnConnected is called, on the relay's goroutine, after each
	// (re)connect's backfill: a consumer then runs reconcile.Sync for that relay.
	OnConnected func(relay string)

	MinBackoff   time.Duration // first reconnect delay [1s]
	MaxBackoff   time.Duration // reconnect delay cap [5m]
	PingInterval time.Duration // liveness check and cursor save period [30s]
	QueryTimeout time.Duration // wait for one EOSE [30s]
	DialTimeout  time.Duration // websocket and NIP-11 connect [10s]
	// Now is the clock for cursors [time.Now].
	Now func() time.Time

	// MaxMessageSize is the largest websocket message kept: a larger one is
	// read through and dropped (RejectOversized) [DefaultMaxMessageSize,
	// 256 KiB], and one over MaxFrameSize ends the connection
	// [DefaultMaxFrameSize, 16 MiB].
	MaxMessageSize int64
	MaxFrameSize   int64
	// QueueBytes bounds the frames read from one relay and not yet handled
	// [DefaultQueueBytes, 4 MiB].
	QueueBytes int
	// BackfillBudget is how long after Run starts a relay whose first
	// backfill has not completed stops holding Ready back [30s].
	BackfillBudget time.Duration
	// BackfillEvents settles a relay once its first backfill has delivered
	// this many events [20000].
	BackfillEvents int
	// BackfillPages is the pages one session asks for; then the relay
	// counts as settled, the progress is kept and the session ends, to
	// resume from there on the next connection [100].
	BackfillPages int
	// ProfileBatch is the authors of one profile query [100].
	ProfileBatch int
	// RelayLists also follows the watched authors' relay lists (kind
	// 10002, NIP-65) wherever it follows their profiles, so that a consumer
	// can Follow their write relays (follow.OutboxRelays).
	RelayLists bool

	// MaxRelays caps the relays followed at once, Relays and the relays
	// added by Follow together [DefaultMaxRelays]. Relays are always
	// followed; Follow adds none past the cap.
	MaxRelays int
	// AllowPrivate lets relays added by Follow (named by someone else:
	// players' relay lists) be private, loopback or link-local addresses.
	// Without it they are dialed through internal/netguard, which refuses
	// such addresses after resolution; Relays are always dialed as
	// written. Only the operator sets it (--allow-private-relays).
	AllowPrivate bool
	// AsideAfter is how many failed sessions in a row put a relay added by
	// Follow aside [3]: it is then retried only after AsideBackoff, doubling
	// up to AsideMaxBackoff [10m, 6h], until a session succeeds. (The
	// configured relays keep MinBackoff..MaxBackoff: someone chose them.)
	AsideAfter      int
	AsideBackoff    time.Duration
	AsideMaxBackoff time.Duration
	// MayWrite lists relays whose restricted_writes or payment_required does
	// not stop a publication (their policy admits this key); elsewhere
	// publications skip such relays (PublishResult.Skipped).
	MayWrite []string
}

// DefaultMaxRelays is Config.MaxRelays' default: enough for a few
// configured relays and the write relays of a few dozen players, few
// enough that each relay's goroutine, socket and sync stay cheap.
const DefaultMaxRelays = 24

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
	def(&cfg.BackfillBudget, 30*time.Second)
	if cfg.BackfillEvents <= 0 {
		cfg.BackfillEvents = 20000
	}
	if cfg.BackfillPages <= 0 {
		cfg.BackfillPages = 100
	}
	if cfg.ProfileBatch <= 0 {
		cfg.ProfileBatch = 100
	}
	if cfg.MaxRelays <= 0 {
		cfg.MaxRelays = DefaultMaxRelays
	}
	if cfg.AsideAfter <= 0 {
		cfg.AsideAfter = 3
	}
	def(&cfg.AsideBackoff, 10*time.Minute)
	def(&cfg.AsideMaxBackoff, 6*time.Hour)
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

// Client follows the game kinds and watched profiles on every configured
// relay, and on the relays Follow adds, each relay on its own goroutine and
// connection.
type Client struct {
	cfg        Config
	configured []string // Config.Relays, normalised
	connected  atomic.Int64
	running    atomic.Bool
	// live is each session's connection, on which Publish sends.
	live liveConns

	mu       sync.Mutex
	relays   []string        // configured, then followed, in order
	extra    map[string]bool // relays added by Follow
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
		extra:      make(map[string]bool),
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

// addRelayLocked sets up what a followed relay needs.
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

// Relays lists the normalised relay URLs followed now, Config.Relays first
// (the Relay of every Received and the key of every cursor).
func (c *Client) Relays() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.relays)
}

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
	if added {
		for _, ch := range c.notify {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
	c.mu.Unlock()
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
// out; relays added by Follow meanwhile are followed too. It returns nil
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
		c.follow(rctx, url, rs.out)
	})
}

// first counts a relay's first backfill, across its sessions, against
// Config.BackfillEvents.
type first struct {
	events int
}

// follow keeps one relay connected until ctx is done.
func (c *Client) follow(ctx context.Context, url string, out chan<- Received) {
	log := c.cfg.Logger.With("relay", url)
	// However the relay behaves (no answer, no EOSE, endless pages), it
	// holds Ready back for BackfillBudget at most.
	budget := time.AfterFunc(c.cfg.BackfillBudget, func() {
		if c.settle(url) {
			log.Warn("relay: first backfill over its time budget; not waiting for it", "budget", c.cfg.BackfillBudget)
		}
	})
	defer budget.Stop()
	bo := backoff{min: c.cfg.MinBackoff, max: c.cfg.MaxBackoff}
	aside := backoff{min: c.cfg.AsideBackoff, max: c.cfg.AsideMaxBackoff}
	configured := slices.Contains(c.configured, url)
	failed := 0
	fb := &first{}
	for ctx.Err() == nil {
		healthy, err := c.session(ctx, url, out, fb)
		if ctx.Err() != nil {
			return
		}
		if healthy {
			bo.reset()
			aside.reset()
			failed = 0
		} else if failed++; failed >= firstTries {
			c.settle(url)
		}
		wait := bo.next()
		if errors.Is(err, wire.ErrRateLimited) {
			wait += bo.next() // and the step after: the relay asked us to slow down
		}
		// A relay someone else named (a player's relay list) that keeps
		// failing is tried rarely: it may be gone for good, and it must not
		// cost a dial every few minutes for ever.
		putAside := !configured && failed >= c.cfg.AsideAfter
		// A relay that reads only to authenticated clients, with no key
		// to authenticate with, will refuse the next session too: it is
		// tried as rarely as one put aside, and said so plainly.
		noKey := errors.Is(err, wire.ErrAuthNoKey)
		if putAside || noKey {
			wait = aside.next()
		}
		c.noteDown(url, err, failed, putAside, time.Now().Add(wait))
		logDown(log, err, wait, failed, putAside, noKey)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// logDown says why a session ended and when the relay is tried again.
func logDown(log *slog.Logger, err error, wait time.Duration, failed int, putAside, noKey bool) {
	switch {
	case noKey:
		log.Error("relay: the relay requires NIP-42 authentication to read, and no key is configured to authenticate with", "err", err, "retry_in", wait.Round(time.Second))
	case errors.Is(err, ErrBudget):
		log.Info("relay: backfill continues on the next connection", "retry_in", wait.Round(time.Millisecond))
	case putAside:
		log.Warn("relay: put aside after repeated failures", "err", err, "failures", failed, "retry_in", wait.Round(time.Second))
	default:
		log.Warn("relay: disconnected", "err", err, "retry_in", wait.Round(time.Millisecond))
	}
}

// session is one connection: live subscriptions, backfill from the cursor
// (or from the saved progress of an unfinished one), profiles, then
// liveness pings and cursor saves until the connection ends. healthy
// reports that the backfill completed or made progress, which resets the
// backoff.
func (c *Client) session(ctx context.Context, url string, out chan<- Received, fb *first) (healthy bool, err error) {
	s := &clientSession{c: c, url: url, out: out, log: c.cfg.Logger.With("relay", url)}
	c.live.set(url, nil, true)
	s.guard = c.guardOf(url)
	info := limits.GetVia(ctx, url, c.cfg.DialTimeout, s.guard)
	s.lim = limits.Of(info)
	cn, err := s.dial(ctx)
	if err != nil {
		c.live.set(url, nil, false)
		return false, err
	}
	defer cn.CloseWait(wire.ErrClosed)
	// Publications share this connection while it lasts (clientpublish.go);
	// the deferred reset runs before closeWait.
	c.live.set(url, cn, false)
	defer c.live.set(url, nil, false)
	stop := context.AfterFunc(ctx, func() { cn.Close(context.Cause(ctx)) })
	defer stop()
	c.connected.Add(1)
	defer c.connected.Add(-1)
	c.noteUp(url)
	if info.AuthRequired() {
		if err := s.authFirst(ctx); err != nil {
			return false, err
		}
	}
	notify := c.notifyOf(url)
	inFirst := !c.isSettled(url)
	s.deliver = s.deliverer(ctx)
	pages := c.cfg.BackfillPages
	s.p = &wire.Pager{Conn: cn, Key: c.cfg.Key, Timeout: c.cfg.QueryTimeout, Budget: &pages}
	s.p.Limit, s.p.CapKnown = info.PageLimit(c.cfg.PageLimit)
	if err := s.subscribe(ctx); err != nil {
		return false, err
	}
	if healthy, err := s.backfill(ctx, inFirst, fb); err != nil {
		return healthy, err
	}
	// Profiles are replaceable, so a relay holds one per author: the latest
	// of every watched author is fetched whatever the cursor, which also
	// covers authors watched while this relay was away.
	if err := c.fetchProfiles(ctx, cn, s.p, s.lim, s.authors, s.deliver); err != nil {
		return true, err
	}
	return true, s.serve(ctx, notify)
}

// clientSession is what the steps of one session share.
type clientSession struct {
	c        *Client
	url      string
	log      *slog.Logger
	out      chan<- Received
	cn       *wire.Conn
	lim      limits.REQ
	p        *wire.Pager
	deliver  func(*gn.Event)
	live     *liveGames
	profiles *profileSubs
	authors  []string // the watched authors whose profiles are subscribed
	cursor   int64
	guard    *netguard.Policy // nil for a configured relay: dialed as written
}

// guardOf is url's dial policy: relays added by Follow were named by
// someone else (players' relay lists) and go through netguard; the
// configured ones are dialed as the operator wrote them.
func (c *Client) guardOf(url string) *netguard.Policy {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.extra[url] {
		return nil
	}
	return &netguard.Policy{AllowPrivate: c.cfg.AllowPrivate}
}

func (s *clientSession) dial(ctx context.Context) (*wire.Conn, error) {
	c := s.c
	dctx, cancel := context.WithTimeout(ctx, c.cfg.DialTimeout)
	defer cancel()
	cn, err := wire.Dial(dctx, s.url, s.log, func(reason string) {
		if c.cfg.OnReject != nil {
			c.cfg.OnReject(s.url, reason)
		}
	}, wire.Limits{MaxMessage: c.cfg.MaxMessageSize, MaxFrame: c.cfg.MaxFrameSize, QueueBytes: c.cfg.QueueBytes, Guard: s.guard})
	s.cn = cn
	return cn, err
}

// authFirst authenticates before the first REQ, so that neither it nor a
// publication sharing the connection is refused first. A failed AUTH on a
// connection that lives on is only logged: the relay may serve anyway.
func (s *clientSession) authFirst(ctx context.Context) error {
	if err := s.cn.AuthFirst(ctx, s.c.cfg.Key, s.c.cfg.QueryTimeout); err != nil {
		if s.cn.Ctx.Err() != nil {
			return err
		}
		s.log.Warn("relay: AUTH before reading failed", "err", err)
	}
	return nil
}

// deliverer sends each event of the relay on out, until the session or
// the connection ends.
func (s *clientSession) deliverer(ctx context.Context) func(*gn.Event) {
	return func(ev *gn.Event) {
		if ctx.Err() != nil {
			return
		}
		r := Received{Event: ev, Relay: s.url}
		select {
		case s.out <- r:
		case <-ctx.Done():
		case <-s.cn.Ctx.Done(): // the session is ending; closeWait waits for us
		}
	}
}

// subscribe opens the live subscriptions: the game kinds, and the
// profiles of the watched authors in what room the relay leaves.
func (s *clientSession) subscribe(ctx context.Context) error {
	c := s.c
	live, err := c.openLive(ctx, s.cn, wire.GameFilters(nil), s.lim, s.deliver)
	if err != nil {
		return err
	}
	s.live = live
	s.authors = c.watched()
	s.profiles = &profileSubs{cn: s.cn, lim: s.lim, kinds: c.profileKinds(), max: s.lim.LiveSubs() - live.n, deliver: s.deliver}
	return s.profiles.open(s.authors)
}

// backfill covers the relay's events from the cursor (or the saved
// progress) to the start of the live subscription, settles the relay, and
// moves the cursor there.
func (s *clientSession) backfill(ctx context.Context, inFirst bool, fb *first) (progressed bool, err error) {
	c, url := s.c, s.url
	start := c.cfg.Now().Unix()
	cursor, err := c.cfg.Cursors.Cursor(ctx, url)
	if err != nil {
		return false, err
	}
	bf, err := loadBackfill(ctx, c.cfg.Cursors, url)
	if err != nil {
		return false, err
	}
	bk := &backfiller{c: c, url: url, out: s.out, p: s.p, inFirst: inFirst, fb: fb, deliver: s.deliver}
	n, progressed, err := bk.run(ctx, cursor, start, bf)
	if err != nil {
		if errors.Is(err, wire.ErrBudget) {
			c.settle(url)
		}
		return progressed, err
	}
	s.log.Info("relay: backfilled", "events", n)
	c.settle(url)
	// OnConnected (reconcile.Sync's caller): the backfill covers created_at
	// from the cursor only, so after every (re)connect the consumer
	// reconciles.
	if c.cfg.OnConnected != nil {
		c.cfg.OnConnected(url)
	}
	// The cursor may move to a time t once every event the relay had
	// stored by t has been delivered and taken from out: here, the start
	// of the live subscription, and later the time of each ping.
	s.cursor = c.saveCursor(ctx, url, cursor, start, s.out, &Backfill{})
	return true, nil
}

// serve keeps the session until the connection ends: newly watched
// authors' profiles, and a ping every PingInterval that moves the cursor.
func (s *clientSession) serve(ctx context.Context, notify <-chan struct{}) error {
	ping := time.NewTicker(s.c.cfg.PingInterval)
	defer ping.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.cn.Ctx.Done():
			return s.cn.Err()
		case reason := <-s.live.closed:
			return wire.NewClosedError(s.url, reason)
		case reason := <-s.profiles.closed():
			// Profiles are not worth the connection: the relay refused one
			// of their subscriptions (too many, say); they are still
			// fetched on each connect.
			s.log.Warn("relay: profile subscription closed", "reason", reason)
		case <-notify:
			if err := s.watchNew(ctx); err != nil {
				return err
			}
		case <-ping.C:
			if err := s.ping(ctx); err != nil {
				return err
			}
		}
	}
}

// watchNew subscribes to and fetches the profiles of authors watched
// since the session started.
func (s *clientSession) watchNew(ctx context.Context) error {
	now := s.c.watched()
	fresh := newAuthors(s.authors, now)
	if len(fresh) == 0 {
		return nil
	}
	s.authors = now
	if err := s.profiles.add(fresh, s.authors); err != nil {
		return err
	}
	return s.c.fetchProfiles(ctx, s.cn, s.p, s.lim, fresh, s.deliver)
}

// ping checks the connection and, once the relay's pong is in, moves the
// cursor to the time of the ping: frames arrive in order, so every event
// the relay sent before its pong has been delivered by then.
func (s *clientSession) ping(ctx context.Context) error {
	if s.cn.Delivering.Load() {
		// Events are flowing but the consumer is behind: the reader
		// cannot take a pong now, and the connection is plainly alive.
		return nil
	}
	t := s.c.cfg.Now().Unix()
	pctx, cancel := context.WithTimeout(ctx, s.c.cfg.QueryTimeout)
	err := s.cn.Ping(pctx)
	cancel()
	if err != nil {
		if s.cn.Ctx.Err() == nil && s.cn.Delivering.Load() {
			return nil // the pong is queued behind a slow consumer
		}
		return err
	}
	s.cursor = s.c.saveCursor(ctx, s.url, s.cursor, t, s.out, nil)
	return nil
}

// isSettled reports whether url's first backfill is done or given up.
func (c *Client) isSettled(url string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.settled[url]
}

// fetchProfiles asks for the profiles of authors in batches of
// Config.ProfileBatch (fewer if the relay's max_message_length says so),
// one query at a time, each bounded to the pages its authors' events
// need (a relay holds one profile, and one relay list, per author).
func (c *Client) fetchProfiles(ctx context.Context, cn *wire.Conn, p *wire.Pager, lim limits.REQ, authors []string, deliver func(*gn.Event)) error {
	for chunk := range slices.Chunk(authors, min(c.cfg.ProfileBatch, lim.AuthorsPerFilter())) {
		kinds := c.profileKinds()
		// A relay holds one event per author and kind: enough pages for
		// that many at the relay's page size, and a few more.
		pages := 4 + len(chunk)*len(kinds)/max(1, p.Limit)
		pp := &wire.Pager{Conn: cn, Key: p.Key, Limit: p.Limit, CapKnown: p.CapKnown, Timeout: p.Timeout, Budget: &pages}
		f := gn.Filter{Kinds: kinds, Authors: chunk}
		if _, err := pp.Run(ctx, f, 0, deliver); err != nil && !errors.Is(err, wire.ErrBudget) {
			return err
		}
	}
	return nil
}

// backfiller runs one session's backfill of the game filters.
type backfiller struct {
	c       *Client
	url     string
	out     chan<- Received
	p       *wire.Pager
	inFirst bool // the relay has not settled yet: count against BackfillEvents
	fb      *first
	deliver func(*gn.Event)
}

// run backfills [cursor - SafetyMargin, start], or, when bf holds the
// progress of an unfinished backfill, first the gap since that one started
// and then what it had left. Progress is sent (or saved) after each page,
// so a session cut short, by a crash or the page budget, loses at most a
// page. progressed reports that the window shrank.
func (b *backfiller) run(ctx context.Context, cursor, start int64, bf Backfill) (delivered int, progressed bool, err error) {
	margin := int64(b.c.cfg.SafetyMargin / time.Second)
	filters := wire.GameFilters(nil)
	// Counted on the dispatcher goroutine, read on this one, and a page
	// that timed out may still be arriving.
	var n atomic.Int64
	deliver := func(ev *gn.Event) {
		n.Add(1)
		b.deliver(ev)
		b.countFirst()
	}
	if len(bf.Until) != len(filters) || bf.Top > start || bf.Top <= 0 {
		bf = Backfill{} // none, or from a build with other filters
	}
	if !bf.IsZero() {
		// The gap since the unfinished backfill started, whole: it is short
		// (the time the last session lasted), and only once it is done is
		// [Until, start] covered and the saved progress moved.
		gap := gn.Timestamp(max(0, bf.Top-margin))
		for _, f := range filters {
			f.Since = &gap
			if _, err := b.p.Run(ctx, f, 0, deliver); err != nil {
				return int(n.Load()), false, err
			}
		}
		bf.Top = start
		b.save(ctx, bf)
	} else {
		since := max(0, cursor-margin)
		bf = Backfill{Since: since, Top: start, Until: make([]int64, len(filters))}
		for i := range bf.Until {
			bf.Until[i] = start
		}
	}
	for i, f := range filters {
		if err := b.filter(ctx, &bf, i, f, deliver, &progressed); err != nil {
			return int(n.Load()), progressed, err
		}
	}
	return int(n.Load()), true, nil
}

// countFirst counts an event of the relay's first backfill against
// Config.BackfillEvents, and settles the relay when it is used up.
func (b *backfiller) countFirst() {
	c := b.c
	if !b.inFirst {
		return
	}
	if b.fb.events++; b.fb.events == c.cfg.BackfillEvents {
		if c.settle(b.url) {
			c.cfg.Logger.Warn("relay: first backfill over its event budget; not waiting for it", "relay", b.url, "events", b.fb.events)
		}
	}
}

// filter backfills game filter i over [bf.Since, bf.Until[i]], saving
// the progress after each page and once it is done.
func (b *backfiller) filter(ctx context.Context, bf *Backfill, i int, f gn.Filter, deliver func(*gn.Event), progressed *bool) error {
	if bf.Until[i] < bf.Since {
		return nil
	}
	since, until := gn.Timestamp(bf.Since), gn.Timestamp(bf.Until[i])
	f.Since, f.Until = &since, &until
	_, err := b.p.RunFrom(ctx, f, 0, deliver, func(next gn.Timestamp) {
		if int64(next) < bf.Until[i] {
			*progressed = true
			bf.Until = slices.Clone(bf.Until)
			bf.Until[i] = int64(next)
			b.save(ctx, *bf)
		}
	})
	if err != nil {
		return err
	}
	bf.Until = slices.Clone(bf.Until)
	bf.Until[i] = bf.Since - 1 // done
	b.save(ctx, *bf)
	*progressed = true
	return nil
}

// save records bf behind the events delivered so far.
func (b *backfiller) save(ctx context.Context, bf Backfill) {
	c := b.c
	if c.cfg.MarkCursors {
		select {
		case b.out <- Received{Relay: b.url, Backfill: &bf}:
		case <-ctx.Done():
		}
		return
	}
	bs, ok := c.cfg.Cursors.(BackfillStore)
	if !ok || len(b.out) > 0 {
		return
	}
	if err := bs.SetBackfill(ctx, b.url, bf.Since, bf.Top, bf.Until); err != nil && ctx.Err() == nil {
		c.cfg.Logger.Error("relay: saving backfill progress", "relay", b.url, "err", err)
	}
}

// liveGames are a session's live subscriptions to the game kinds: one
// REQ, or several when the relay's max_filters (or max_message_length)
// allows fewer filters in one.
type liveGames struct {
	n      int         // subscriptions
	closed chan string // the CLOSED reason of any of them
}

// openLive subscribes to new events only ("limit":0); the backfill fetches
// the stored ones. It waits for each EOSE so that the backfill that
// follows overlaps the live stream instead of leaving a gap.
func (c *Client) openLive(ctx context.Context, cn *wire.Conn, filters []gn.Filter, lim limits.REQ, deliver func(*gn.Event)) (*liveGames, error) {
	for i := range filters {
		filters[i].LimitZero = true
	}
	lg := &liveGames{closed: make(chan string, 1)}
	for _, fs := range limits.PackREQs(filters, lim) {
		s, err := c.openLiveREQ(ctx, cn, fs, deliver)
		if err != nil {
			return nil, err
		}
		lg.n++
		go func() {
			select {
			case r := <-s.Closed():
				select {
				case lg.closed <- r:
				default:
				}
			case <-cn.Ctx.Done():
			}
		}()
	}
	return lg, nil
}

func (c *Client) openLiveREQ(ctx context.Context, cn *wire.Conn, filters []gn.Filter, deliver func(*gn.Event)) (*wire.Sub, error) {
	authTried := false
	for {
		s, err := cn.Subscribe(filters, deliver)
		if err != nil {
			return nil, err
		}
		err = cn.WaitEOSE(ctx, s, c.cfg.QueryTimeout)
		switch {
		case err == nil:
			return s, nil
		case errors.Is(err, wire.ErrAuthRequired):
			if retry, err := cn.RetryAfterAuth(ctx, c.cfg.Key, err, &authTried); !retry {
				return nil, err
			}
		case errors.Is(err, wire.ErrClosed), ctx.Err() != nil:
			return nil, err
		default:
			var ce *wire.ClosedError
			if errors.As(err, &ce) {
				return nil, err
			}
			// No EOSE in time: some relays never send one for "limit":0.
			// The subscription is open; go on.
			c.cfg.Logger.Warn("relay: live subscription without EOSE", "relay", cn.URL, "err", err)
			return s, nil
		}
	}
}

// profileKinds are the replaceable kinds followed for watched authors.
func (c *Client) profileKinds() []int {
	if c.cfg.RelayLists {
		return []int{nostr.KindProfile, nostr.KindRelayList}
	}
	return []int{nostr.KindProfile}
}

// profileSubs are the live profile subscriptions of one connection, split
// within the relay's limits (NIP-11 max_message_length, max_filters,
// max_subscriptions): one REQ listing every watched author breaks them
// past a few thousand authors, and the relay then drops the connection
// for good. Authors beyond what the limits allow are not followed live;
// their profiles are still fetched on every connect.
type profileSubs struct {
	cn      *wire.Conn
	lim     limits.REQ
	kinds   []int
	max     int // subscriptions the connection has left for them
	deliver func(*gn.Event)
	subs    []*wire.Sub
	merged  chan string // CLOSED reasons of any of subs
}

func (ps *profileSubs) closed() chan string {
	if ps.merged == nil {
		ps.merged = make(chan string, 1)
	}
	return ps.merged
}

// open subscribes to authors' profiles, replacing any subscriptions open.
func (ps *profileSubs) open(authors []string) error {
	for _, s := range ps.subs {
		ps.cn.Unsubscribe(s)
	}
	ps.subs = nil
	reqs, rest := limits.ProfileREQs(ps.kinds, authors, ps.lim, ps.max)
	if len(rest) > 0 {
		ps.cn.Log.Warn("relay: too many watched authors to follow live; their profiles are fetched on connect",
			"relay", ps.cn.URL, "authors", len(authors), "not_live", len(rest))
	}
	return ps.subscribe(reqs)
}

// add follows fresh authors too: in new subscriptions while the relay's
// limit allows, else by repacking all of them.
func (ps *profileSubs) add(fresh, all []string) error {
	reqs, rest := limits.ProfileREQs(ps.kinds, fresh, ps.lim, ps.max-len(ps.subs))
	if len(rest) > 0 {
		return ps.open(all)
	}
	return ps.subscribe(reqs)
}

func (ps *profileSubs) subscribe(reqs [][]gn.Filter) error {
	ch := ps.closed()
	for _, fs := range reqs {
		s, err := ps.cn.Subscribe(fs, ps.deliver)
		if err != nil {
			return err
		}
		ps.subs = append(ps.subs, s)
		go func() {
			select {
			case r := <-s.Closed():
				select {
				case ch <- r:
				default:
				}
			case <-ps.cn.Ctx.Done():
			}
		}()
	}
	return nil
}

// saveCursor moves the cursor to t, but only when the consumer has taken
// everything from out: an event still in a buffered out would be lost for
// good by a crash if the cursor had already moved past it (with
// MarkCursors, the consumer moves it). It returns the cursor as it now
// stands.
//
// bf, if not nil, is saved with the cursor (an empty one clears the
// progress of a finished backfill).
func (c *Client) saveCursor(ctx context.Context, url string, old, t int64, out chan<- Received, bf *Backfill) int64 {
	if t <= old && bf == nil {
		return old
	}
	if c.cfg.MarkCursors {
		// out is in order, so the mark follows every event sent before it.
		select {
		case out <- Received{Relay: url, Cursor: max(t, old), Backfill: bf}:
			return max(t, old)
		case <-ctx.Done():
			return old
		}
	}
	if len(out) > 0 {
		return old
	}
	if err := SaveMark(ctx, c.cfg.Cursors, Received{Relay: url, Cursor: max(t, old), Backfill: bf}); err != nil {
		if ctx.Err() == nil {
			c.cfg.Logger.Error("relay: saving cursor", "relay", url, "err", err)
		}
		return old
	}
	return max(t, old)
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

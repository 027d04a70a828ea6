package relay

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/netguard"
	"vesper/nostr/relay/internal/wire"
	"vesper/nostr/relay/limits"
)

// read keeps one relay connected, and read, until ctx is done.
func (c *Client) read(ctx context.Context, url string, out chan<- Received) {
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
	if !c.followed[url] {
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

// liveGames are a session's live subscriptions to the game kinds: one
// REQ, or several when the relay's max_filters (or max_message_length)
// allows fewer filters in one.
type liveGames struct {
	n      int         // subscriptions
	closed chan string // the CLOSED reason of any of them
}

// openLive subscribes to new events only ("limit":0); the backfill fetches
// the stored ones. It waits for each EOSE so that the backfill that
// comes after overlaps the live stream instead of leaving a gap.
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

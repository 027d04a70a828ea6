package daemon

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"vesper/internal/pause"
	"vesper/nostr/relay"
)

// runDaemon is the daemon: it starts the workers (start), then steps the
// loop (step.go) until ctx ends.
func (n *Daemon) runDaemon(ctx context.Context, o Options) error {
	// Every goroutine the daemon starts (the relay client, the sync
	// worker, the publisher, a site build) has ended when runDaemon
	// returns, whatever the reason, so the caller closes the store under
	// nobody.
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
		<-siteOf(n).wait()
	}()
	l := n.newLoop(o)
	if o.Metrics != "" {
		n.met = newMetrics(l.client.Connected)
		l.syncMet = newSyncMetrics(n.met)
		ln, err := n.met.serve(o.Metrics)
		if err != nil {
			return fmt.Errorf("--metrics %s: %v", o.Metrics, err)
		}
		defer ln.Close()
	}
	defer l.disarm()
	if err := l.start(ctx, &wg); err != nil {
		if ctx.Err() != nil {
			return nil // stopped while starting
		}
		return err
	}
	return l.run(ctx)
}

// newLoop makes the loop's client and channels; start starts them.
func (n *Daemon) newLoop(o Options) *loop {
	l := &loop{n: n, o: o, wall: time.Now,
		// Each queued event may hold up to the client's message cap in
		// raw bytes: the queue's length bounds that memory (256 x 256 KiB).
		recv:         make(chan relay.Received, 256),
		reconnected:  make(chan string, 64),
		synced:       make(chan syncRun, 1),
		reveal:       make(chan []string, 16),
		kick:         make(chan struct{}, 1),
		asked:        map[string]bool{},
		profileAsk:   make(chan []string, 16),
		profileAsked: map[string]bool{},
		unfolded:     map[string]bool{}, // matches stored during the first backfill, not yet folded
		runs:         make(chan pause.Run),
	}
	// A relay that (re)connected is reconciled (syncWorker): its backfill
	// asks only for created_at after the cursor.
	l.client = relay.New(relay.Config{Relays: n.relays, Cursors: n.st, MarkCursors: true, Key: n.key, Logger: n.log,
		RelayLists: true, MaxRelays: n.maxRelays, AllowPrivate: n.allowPrivate,
		OnReject: func(_, reason string) { n.met.rejected(reason) },
		OnConnected: func(url string) {
			select {
			case l.reconnected <- url:
			default: // the worker is behind; the periodic sync covers the relay
			}
		}})
	l.ready = l.client.Ready()
	return l
}

// start resumes, starts the workers, publishes the daemon's own profile
// and relay list, and arms the loop's timers.
func (l *loop) start(ctx context.Context, wg *sync.WaitGroup) error {
	n := l.n
	r, err := l.resume(ctx)
	if err != nil {
		return fmt.Errorf("resume: %v", err)
	}
	l.startBackground(ctx, wg, r)
	wg.Go(func() {
		if err := l.client.Run(ctx, l.recv); err != nil && ctx.Err() == nil {
			n.log.Error("relay client stopped", "err", err)
		}
	})
	// The sync worker sends its events on recv like the client, then a
	// marker (a Received with neither Event nor Relay) behind them, with
	// its outcome on synced: when the loop meets the marker, everything
	// the sync fetched is stored.
	wg.Go(func() { n.syncWorker(ctx, l.o, l.recv, l.reconnected, l.reveal, l.synced, l.syncMet) })
	wg.Go(func() { n.profileFetcher(ctx, l.profileAsk, l.recv) })
	if err := errors.Join(n.profileDuty(ctx), n.relayListDuty(ctx)); err != nil {
		return fmt.Errorf("outbox: %v", err)
	}
	wg.Go(func() { n.publisher(ctx, l.kick, l.client) })
	l.arm(ctx)
	l.every(ctx, wg, l.o.Tick, l.stepTick)
	if l.o.SiteDir != "" {
		l.every(ctx, wg, l.o.SiteEvery, l.stepSite) // arm built it a first time
	}
	return nil
}

// every schedules a periodic duty of the loop: step runs on the loop's
// goroutine, between two batches (it may touch what the loop keeps), d
// after the start and then d after each run has ended, until ctx ends.
// Work that needs only the store runs on a goroutine of its own instead
// (recordsWorker); both are pause.Every.
func (l *loop) every(ctx context.Context, wg *sync.WaitGroup, d time.Duration, step func(context.Context)) {
	wg.Go(func() { pause.After(ctx, d, pause.On(l.runs, step)) })
}

// resume folds what a start folds: the open matches and those a crash
// left behind their events, not the history; it watches their players.
func (l *loop) resume(ctx context.Context) (resumed, error) {
	n := l.n
	r, err := n.resume(ctx)
	if err != nil {
		return r, err
	}
	watch, err := n.st.AcceptedPlayers(ctx)
	if err != nil {
		return r, err
	}
	n.log.Info("daemon started", "matches_folded", r.folded, "kept", len(n.snapshot()), "dormant", r.dormant,
		"stale_summaries", r.stale, "relays", len(n.relays), "pubkey", n.self)
	l.client.WatchAuthors(watch...)
	return r, nil
}

// startBackground starts the workers beside the loop: the analysis, the
// records (without a site), and the re-fold of summaries of another fold
// version that resume found.
func (l *loop) startBackground(ctx context.Context, wg *sync.WaitGroup, r resumed) {
	n, o := l.n, l.o
	if n.analyst != nil {
		wg.Go(func() { n.analyse(ctx) })
	}
	if n.self != "" && o.SiteDir == "" {
		wg.Go(func() { n.recordsWorker(ctx, o, max(o.Tick, time.Minute)) })
	}
	if r.stale > 0 {
		wg.Go(func() {
			if err := n.upgrade(ctx); err != nil && ctx.Err() == nil {
				n.log.Error("re-folding summaries of another fold version", "err", err)
			}
		})
	}
}

// arm builds the site a first time and starts the loop's timers.
func (l *loop) arm(ctx context.Context) {
	if l.o.SiteDir != "" {
		l.n.buildSiteLogged(ctx, l.o)
	}
	l.quiet = time.NewTimer(time.Second)
	l.lastEvent, l.lastDuties = l.wall(), l.wall()
	l.syncWait = time.NewTimer(l.firstSyncWait())
}

// disarm stops the timers arm started.
func (l *loop) disarm() {
	for _, t := range []*time.Timer{l.quiet, l.syncWait} {
		if t != nil {
			t.Stop()
		}
	}
}

// firstSyncWait is how long the duties wait for the start's sync.
func (l *loop) firstSyncWait() time.Duration {
	if l.o.FirstSyncWait <= 0 {
		return 90 * time.Second
	}
	return l.o.FirstSyncWait
}

// revealed sends to reveal the matches that a batch's items name and
// whose challenge the store lacks (each match once per run of the
// daemon): a relay has just shown they exist, so every relay is asked for
// them.
func (n *Daemon) revealed(ctx context.Context, items []item, asked map[string]bool, reveal chan<- []string) {
	var cand []string
	for _, it := range items {
		for _, m := range it.Matches {
			if m != it.Event.ID && !asked[m] && n.state(m) == nil {
				asked[m] = true
				cand = append(cand, m)
			}
		}
	}
	if len(cand) == 0 {
		return
	}
	known, err := n.st.KnownIDs(ctx, cand)
	if err != nil {
		return // the periodic sync asks for every such match (store.LiveMatches)
	}
	var lack []string
	for _, m := range cand {
		if !known[m] {
			lack = append(lack, m)
		}
	}
	if len(asked) > 100_000 {
		clear(asked) // a relay naming endless matches costs memory no longer
	}
	if len(lack) > 0 {
		select {
		case reveal <- lack:
		default: // the worker is behind; the periodic sync covers them
		}
	}
}

// foldBackfill folds, once each, the matches the first backfill stored,
// and returns the players of every stored accepted match (for their
// profiles). The store answers, not memory: a match the backfill found
// final leaves memory as soon as it is folded, and its players would
// otherwise stay nameless until a restart (issue 26, item 1).
func (n *Daemon) foldBackfill(ctx context.Context, unfolded map[string]bool) ([]string, error) {
	ids := sortedIDs(unfolded)
	if err := n.refoldAll(ctx, ids, nil); err != nil {
		return nil, err
	}
	return n.st.AcceptedPlayers(ctx)
}

func (n *Daemon) duties(ctx context.Context, poke func()) {
	k, err := n.decide(ctx)
	if err != nil && ctx.Err() == nil {
		n.log.Error("duties", "err", err)
	}
	if k > 0 {
		poke()
	}
}

// publisher sends the outbox whenever kicked, and retries what is pending
// with a growing delay (from 2 s up to 5 minutes) until a relay accepts.
func (n *Daemon) publisher(ctx context.Context, kick <-chan struct{}, client *relay.Client) {
	delay := 2 * time.Second
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-kick:
		case <-t.C:
		}
		res, err := n.publishPendingVia(ctx, client, 10*time.Second)
		if err != nil && ctx.Err() == nil {
			n.log.Error("outbox", "err", err)
		}
		failed := false
		for _, d := range res {
			if d.Error != "" {
				failed = true
				n.log.Warn("publish failed", "duty", d.Duty, "err", d.Error)
			} else {
				n.log.Info("published", "duty", d.Duty, "event", d.Event, "relays", d.SentTo)
			}
		}
		if failed {
			delay = min(delay*2, 5*time.Minute)
		} else {
			delay = 2 * time.Second
		}
		if !t.Stop() {
			select {
			case <-t.C:
			default:
			}
		}
		t.Reset(delay)
	}
}

// statusCounts counts the matches by status: the kept ones by their
// status now, the others (final or expired) as the store has them, and
// the dormant ones under "dormant" (their status stays active: dormancy
// is this daemon's memory, not the match's state).
func (n *Daemon) statusCounts(ctx context.Context) map[string]int {
	now := n.clock()
	out, err := n.st.StatusCounts(ctx, true, n.dormancy(now))
	if err != nil {
		out = map[string]int{}
	}
	out["dormant"] += 0 // the gauge reads 0, not its last count, once none is left
	for _, s := range n.snapshot() {
		if !n.dormant(s, now) { // the store counted it (it leaves at the next evict)
			out[string(s.Status(now))]++
		}
	}
	return out
}

// sortedIDs are the keys of set, sorted.
func sortedIDs(set map[string]bool) []string {
	ids := make([]string, 0, len(set))
	for id := range set {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

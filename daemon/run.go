package daemon

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"vesper/match"
	"vesper/nostr/relay"
	"vesper/store"
)

// runDaemon is the daemon loop: ingest, fold, decide, publish, build.
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
	// A relay that (re)connected is reconciled (syncWorker): its backfill
	// asks only for created_at after the cursor.
	reconnected := make(chan string, 64)
	client := relay.New(relay.Config{Relays: n.relays, Cursors: n.st, MarkCursors: true, Key: n.key, Logger: n.log,
		RelayLists: true, MaxRelays: n.maxRelays,
		OnReject: func(_, reason string) { n.met.rejected(reason) },
		OnConnected: func(url string) {
			select {
			case reconnected <- url:
			default: // the worker is behind; the periodic sync covers the relay
			}
		}})
	var syncMet *syncMetrics
	if o.Metrics != "" {
		n.met = newMetrics(client.Connected)
		syncMet = newSyncMetrics(n.met)
		ln, err := n.met.serve(o.Metrics)
		if err != nil {
			return fmt.Errorf("--metrics %s: %v", o.Metrics, err)
		}
		defer ln.Close()
	}
	// A start folds the open matches and those a crash left behind their
	// events (resume), not the history; summaries of another fold version
	// are re-folded behind it, while the daemon runs.
	r, err := n.resume(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("resume: %v", err)
	}
	watch, err := n.st.AcceptedPlayers(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("resume: %v", err)
	}
	n.log.Info("daemon started", "matches_folded", r.folded, "kept", len(n.snapshot()), "dormant", r.dormant,
		"stale_summaries", r.stale, "relays", len(n.relays), "pubkey", n.self)
	client.WatchAuthors(watch...)
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

	// Each queued event may hold up to the client's message cap in raw
	// bytes: the queue's length bounds that memory (256 x 256 KiB).
	recv := make(chan relay.Received, 256)
	wg.Go(func() {
		if err := client.Run(ctx, recv); err != nil && ctx.Err() == nil {
			n.log.Error("relay client stopped", "err", err)
		}
	})
	// The sync worker sends its events on recv like the client, then a
	// marker (a Received with neither Event nor Relay) behind them, with
	// its outcome on synced: when the loop meets the marker, everything
	// the sync fetched is stored.
	synced := make(chan syncRun, 1)
	reveal := make(chan []string, 16)
	wg.Go(func() { n.syncWorker(ctx, o, recv, reconnected, reveal, synced, syncMet) })
	asked := map[string]bool{} // matches already sent to reveal
	if err := errors.Join(n.profileDuty(ctx), n.relayListDuty(ctx)); err != nil {
		if ctx.Err() != nil {
			return nil // stopped while starting
		}
		return fmt.Errorf("outbox: %v", err)
	}
	kick := make(chan struct{}, 1)
	wg.Go(func() { n.publisher(ctx, kick, client) })
	poke := func() {
		select {
		case kick <- struct{}{}:
		default:
		}
	}
	tick := time.NewTicker(o.Tick)
	defer tick.Stop()
	var siteC <-chan time.Time
	if o.SiteDir != "" {
		n.buildSiteLogged(ctx, o)
		st := time.NewTicker(o.SiteEvery)
		defer st.Stop()
		siteC = st.C
	}
	// Duties wait for a quiet second after events arrive: during a backfill
	// the daemon would otherwise decide on half a match (accept a challenge
	// whose accept is in the next page, say).
	// And none before every relay has completed its first backfill (or is
	// found down): after a restart, a ruling made on what one relay sent
	// while another was still sending would be public, signed, and wrong.
	quiet := time.NewTimer(time.Second)
	defer quiet.Stop()
	lastEvent, lastDuties := time.Now(), time.Now()
	// A relay that drips an event every half second would keep the quiet
	// second from ever coming: past two ticks without a pass, duties run
	// anyway (the backfill is over by then; what is stored is whole).
	duties := func() {
		n.duties(ctx, poke)
		lastDuties = time.Now()
	}
	ready, backfilled := client.Ready(), false
	clientReady, firstSynced := false, false
	unfolded := map[string]bool{} // matches stored during the first backfill, not yet folded
	// Duties start once every relay has sent its backlog and the first
	// sync has stored what the backlog could not reach (events stamped
	// before the cursor).
	finishBackfill := func() error {
		if backfilled || !clientReady || !firstSynced {
			return nil
		}
		backfilled = true
		players, err := n.foldBackfill(ctx, unfolded)
		if err != nil {
			return err
		}
		client.WatchAuthors(players...)
		n.log.Info("relays backfilled and synced", "matches_folded", len(unfolded))
		unfolded = nil
		quiet.Reset(time.Second)
		return nil
	}
	wait := o.FirstSyncWait
	if wait <= 0 {
		wait = 90 * time.Second
	}
	syncWait := time.NewTimer(wait)
	defer syncWait.Stop()
	for {
		select {
		case <-ctx.Done():
			n.log.Info("daemon stopping")
			return nil
		case <-syncWait.C:
			if !firstSynced {
				n.log.Warn("the start's sync is taking long; duties begin, and it goes on", "waited", wait)
				firstSynced = true
				if err := finishBackfill(); err != nil {
					if ctx.Err() != nil {
						return nil
					}
					return fmt.Errorf("store: %v", err)
				}
			}
		case r := <-recv:
			batch := []relay.Received{r}
		drain:
			for len(batch) < 500 {
				select {
				case r := <-recv:
					batch = append(batch, r)
				default:
					break drain
				}
			}
			var events, marks []relay.Received
			syncEnds := 0
			for _, r := range batch {
				switch {
				case r.Event == nil && r.Relay == "":
					syncEnds++
				case r.Event == nil:
					marks = append(marks, r)
				default:
					events = append(events, r)
				}
			}
			var fresh []string
			if backfilled {
				fresh, err = n.ingest(ctx, events)
			} else {
				// Until every relay has sent its backlog, store only: a match
				// would otherwise be re-folded once per batch that touches it.
				err = n.stash(ctx, events, unfolded)
			}
			if err == nil {
				// A relay's cursor moves only once the events it covers are
				// stored (they came before its mark and are now committed).
				for _, m := range marks {
					if err = relay.SaveMark(ctx, n.st, m); err != nil {
						break
					}
				}
			}
			// A sync's events came before its marker and are stored now.
			for ; err == nil && syncEnds > 0; syncEnds-- {
				if err = n.markSynced(ctx, <-synced); err == nil && !firstSynced {
					firstSynced = true
					err = finishBackfill()
				}
			}
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("store: %v", err)
			}
			client.WatchAuthors(fresh...)
			n.refollow(client)
			if backfilled {
				n.revealed(ctx, events, asked, reveal)
			}
			lastEvent = time.Now()
			quiet.Reset(time.Second)
		case <-ready:
			ready, clientReady = nil, true
			if err := finishBackfill(); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("store: %v", err)
			}
		case <-quiet.C:
			if backfilled {
				duties()
			}
		case <-tick.C:
			if backfilled && (time.Since(lastEvent) >= time.Second || time.Since(lastDuties) >= 2*o.Tick) {
				duties()
			}
			n.evict(n.clock())
			if n.met != nil {
				n.met.statuses(n.statusCounts(ctx))
			}
		case <-siteC:
			n.buildSiteLogged(ctx, o)
		}
	}
}

// revealed sends to reveal the matches that events name and whose
// challenge the store lacks (each match once per run of the daemon): a
// relay has just shown they exist, so every relay is asked for them.
func (n *Daemon) revealed(ctx context.Context, events []relay.Received, asked map[string]bool, reveal chan<- []string) {
	var cand []string
	for _, r := range events {
		for _, m := range store.MatchesOf(r.Event) {
			if m != r.Event.ID && !asked[m] && n.state(m) == nil {
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
		return // the periodic sync asks for every such match (store.OpenMatches)
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

// syncWorker runs the relay syncs one at a time: every relay at start,
// a relay again after each of its reconnects (but the first connect of a
// relay the start's sync covered), every relay each o.SyncEvery, and the
// fallback on every relay for matches revealed by a live event. Each
// run's events go to out, then its outcome to done and a marker to out.
func (n *Daemon) syncWorker(ctx context.Context, o Options, out chan<- relay.Received, reconnected <-chan string, reveal <-chan []string, done chan<- syncRun, met *syncMetrics) {
	every, fullEvery, reconnectGap := o.SyncEvery, o.FullScanEvery, o.ReconnectGap
	if every <= 0 {
		every = time.Hour
	}
	if reconnectGap <= 0 {
		reconnectGap = time.Minute
	}
	if fullEvery <= 0 {
		fullEvery = 24 * time.Hour
	}
	if err := n.st.PrepareSync(ctx); err != nil && ctx.Err() == nil {
		n.log.Error("sync: preparing the store", "err", err) // the sync runs, only slower
	}
	run := func(relays, matches []string) syncRun {
		opts := n.syncOptions(ctx, fullEvery, false)
		opts.NoNIP77 = o.NoNIP77
		if matches != nil {
			opts.Matches, opts.FallbackOnly = matches, true
		}
		// Duties wait for the first sync: a relay that stalls must not
		// hold them for long.
		opts.RelayTimeout = 5 * time.Minute
		if relays != nil {
			opts.Relays = relays
		}
		r := n.sync(ctx, opts, out, met)
		if r.err != nil && ctx.Err() == nil {
			n.log.Error("sync", "err", r.err)
		}
		select {
		case done <- r:
		case <-ctx.Done():
			return r
		}
		select {
		case out <- relay.Received{}:
		case <-ctx.Done():
		}
		return r
	}
	covered := map[string]bool{} // relays the first sync reached, whose first connect needs no sync
	lastRun := map[string]time.Time{}
	full := func() {
		at := time.Now()
		for _, st := range run(nil, nil).stats {
			lastRun[st.Relay] = at
		}
	}
	at := time.Now()
	for _, st := range run(nil, nil).stats {
		covered[st.Relay] = st.Error == ""
		lastRun[st.Relay] = at
	}
	pending := map[string]bool{}
	var retry <-chan time.Time
	runDue := func() {
		var due []string
		var next time.Duration
		for u := range pending {
			if wait := reconnectGap - time.Since(lastRun[u]); wait > 0 {
				if next == 0 || wait < next {
					next = wait
				}
				continue
			}
			due = append(due, u)
			delete(pending, u)
		}
		if len(due) > 0 {
			sort.Strings(due)
			at := time.Now()
			run(due, nil)
			for _, u := range due {
				lastRun[u] = at
			}
		}
		retry = nil
		if len(pending) > 0 {
			retry = time.After(next)
		}
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case u := <-reconnected:
			add := func(u string) {
				if covered[u] {
					covered[u] = false // later connects are reconnects
					return
				}
				pending[u] = true
			}
			add(u)
		more:
			for {
				select {
				case u := <-reconnected:
					add(u)
				default:
					break more
				}
			}
			runDue()
		case <-retry:
			runDue()
		case ms := <-reveal:
			run(nil, ms)
		case <-tick.C:
			full()
		}
	}
}

// stash stores a batch without folding it, adding the matches it touched
// to unfolded (for foldBackfill).
func (n *Daemon) stash(ctx context.Context, batch []relay.Received, unfolded map[string]bool) error {
	fresh, err := n.put(ctx, batch, n.clock())
	if err != nil {
		return err
	}
	for _, ev := range fresh {
		for _, m := range store.MatchesOf(ev) {
			unfolded[m] = true
		}
	}
	return nil
}

// foldBackfill folds, once each, the matches the first backfill stored,
// and returns their players (for their profiles).
func (n *Daemon) foldBackfill(ctx context.Context, unfolded map[string]bool) ([]string, error) {
	ids := make([]string, 0, len(unfolded))
	for id := range unfolded {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	if err := n.refoldAll(ctx, ids, nil); err != nil {
		return nil, err
	}
	var states []*match.State
	for _, id := range ids {
		if s := n.state(id); s != nil {
			states = append(states, s)
		}
	}
	return players(states), nil
}

// players are the pubkeys playing the accepted matches of states: the
// players the site can list, whose profiles the daemon follows. A
// challenger is followed once someone accepts: thousands of challenges
// from fresh keys must not make thousands of watched authors (issue 13).
func players(states []*match.State) []string {
	var out []string
	for _, s := range states {
		if s.Accepted {
			out = append(out, s.First, s.Second)
		}
	}
	return out
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

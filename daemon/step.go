package daemon

import (
	"context"
	"fmt"
	"time"

	"vesper/internal/pause"
	"vesper/nostr/relay"
)

// loop is what the daemon's loop keeps between two steps. run waits for
// the next thing to happen (next) and hands it to step, which dispatches
// to one small handler per kind, the way raft's Step does: each handler
// reads its time from l.wall and the daemon's n.clock, so a test drives
// it with fixed ones and no relay.
type loop struct {
	n      *Daemon
	o      Options
	client *relay.Client
	// wall is the loop's own clock, for the quiet second and the ticks
	// (sub-second, unlike n.clock, which the duties read).
	wall func() time.Time

	recv        chan relay.Received // the client's events and marks, the sync worker's too
	reconnected chan string         // relays the client (re)connected, for the sync worker
	synced      chan syncRun        // a sync's outcome, ahead of its marker on recv
	reveal      chan []string       // matches to ask every relay for
	kick        chan struct{}       // wakes the publisher
	asked       map[string]bool     // matches already sent to reveal
	// profileAsk takes batches of challengers whose profiles to fetch
	// once (challengers.go); profileAsked are those asked in this run.
	profileAsk   chan []string
	profileAsked map[string]bool
	syncMet      *syncMetrics

	// The backfill gate: duties stay shut until the client has every
	// relay's first backfill (clientReady) and the start's sync has stored
	// what the backfill could not reach (firstSynced). Until the backfill
	// events are stored only, their matches listed in unfolded; then they
	// are folded (folded), without waiting for the sync: a relay that
	// pages for ever must not keep what the others sent unfolded for the
	// whole of FirstSyncWait (issue 38 item 5).
	clientReady, firstSynced, folded, backfilled bool
	unfolded                                     map[string]bool

	lastEvent, lastDuties time.Time

	ready    <-chan struct{} // the client's Ready, nil once met
	quiet    *time.Timer
	syncWait *time.Timer
	// runs takes the periodic duties (the tick, the site build) from
	// their pause.Every, to run on the loop between two batches.
	runs chan pause.Run
}

// loopEvent is one thing the loop reacts to.
type loopEvent struct {
	kind  eventKind
	batch []relay.Received // evReceived: up to 500 from recv
	run   pause.Run        // evDuty
}

type eventKind int

const (
	evReceived eventKind = iota // events, relay marks and sync markers from recv
	evReady                     // every relay has settled its first backfill
	evSyncLate                  // the start's sync has taken FirstSyncWait
	evQuiet                     // a second without events
	evDuty                      // a periodic duty is due (loop.every: stepTick, stepSite)
)

// run steps the loop until ctx ends or a step fails on the store.
func (l *loop) run(ctx context.Context) error {
	for {
		ev, ok := l.next(ctx)
		if !ok {
			l.n.log.Info("daemon stopping")
			return nil
		}
		if err := l.step(ctx, ev); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("store: %v", err)
		}
	}
}

// next waits for the next event; false once ctx has ended.
func (l *loop) next(ctx context.Context) (loopEvent, bool) {
	select {
	case <-ctx.Done():
		return loopEvent{}, false
	case <-l.syncWait.C:
		return loopEvent{kind: evSyncLate}, true
	case r := <-l.recv:
		return loopEvent{kind: evReceived, batch: l.drain(r)}, true
	case <-l.ready:
		return loopEvent{kind: evReady}, true
	case <-l.quiet.C:
		return loopEvent{kind: evQuiet}, true
	case r := <-l.runs:
		return loopEvent{kind: evDuty, run: r}, true
	}
}

// drain takes what else recv holds behind first, up to 500 in all: one
// transaction stores them.
func (l *loop) drain(first relay.Received) []relay.Received {
	batch := []relay.Received{first}
	for len(batch) < 500 {
		select {
		case r := <-l.recv:
			batch = append(batch, r)
		default:
			return batch
		}
	}
	return batch
}

// step dispatches ev to its handler. An error is the store's.
func (l *loop) step(ctx context.Context, ev loopEvent) error {
	switch ev.kind {
	case evReceived:
		return l.stepReceived(ctx, ev.batch)
	case evReady:
		return l.stepReady(ctx)
	case evSyncLate:
		return l.stepSyncLate(ctx)
	case evQuiet:
		l.stepQuiet(ctx)
	case evDuty:
		ev.run.Do()
	}
	return nil
}

// stepReceived stores a batch from recv: its events (folded once the gate
// is open), then the relay marks and sync markers behind them.
func (l *loop) stepReceived(ctx context.Context, batch []relay.Received) error {
	events, marks, syncEnds := sortReceived(batch)
	// The batch's events are classified here, once (classify): every
	// step below reads the items' facts.
	now := l.n.clock()
	items := l.n.screen(ctx, events, now)
	var fresh []string
	var err error
	if l.folded {
		fresh, err = l.n.ingestItems(ctx, items, now)
	} else {
		// Until every relay has sent its backlog, store only: a match
		// would otherwise be re-folded once per batch that touches it.
		err = l.n.stash(ctx, items, now, l.unfolded)
	}
	if err == nil {
		err = l.saveMarks(ctx, marks)
	}
	if err == nil {
		err = l.syncsEnded(ctx, syncEnds)
	}
	if err != nil {
		return err
	}
	l.client.WatchAuthors(fresh...)
	l.n.refollow(l.client)
	if l.folded {
		l.n.revealed(ctx, items, l.asked, l.reveal)
		l.askChallengers(ctx, challengeIDs(items))
	}
	// Duties wait for a quiet second after events arrive: during a
	// backfill the daemon would otherwise decide on half a match (accept
	// a challenge whose accept is in the next page, say).
	l.lastEvent = l.wall()
	l.quiet.Reset(time.Second)
	return nil
}

// sortReceived splits a batch into events, relay marks (a Relay without
// an Event) and the number of sync markers (neither).
func sortReceived(batch []relay.Received) (events, marks []relay.Received, syncEnds int) {
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
	return events, marks, syncEnds
}

// saveMarks moves relays' cursors: the events a mark covers came before
// it and are committed now.
func (l *loop) saveMarks(ctx context.Context, marks []relay.Received) error {
	for _, m := range marks {
		if err := relay.SaveMark(ctx, l.n.st, m); err != nil {
			return err
		}
	}
	return nil
}

// syncsEnded records k syncs whose markers the batch held: their events
// came before the markers and are stored now. The first one may open the
// gate.
func (l *loop) syncsEnded(ctx context.Context, k int) error {
	for ; k > 0; k-- {
		if err := l.n.markSynced(ctx, <-l.synced); err != nil {
			return err
		}
		if !l.firstSynced {
			l.firstSynced = true
			if err := l.openGate(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// stepReady: every relay has sent its backlog (or is found down).
func (l *loop) stepReady(ctx context.Context) error {
	l.ready, l.clientReady = nil, true
	return l.openGate(ctx)
}

// stepSyncLate: the start's sync has taken FirstSyncWait; a relay that
// drips its answer must not hold the duties any longer.
func (l *loop) stepSyncLate(ctx context.Context) error {
	if l.firstSynced {
		return nil
	}
	l.n.log.Warn("the start's sync is taking long; duties begin, and it goes on", "waited", l.firstSyncWait())
	l.firstSynced = true
	return l.openGate(ctx)
}

// openGate opens the duties once every relay has sent its backlog and the
// first sync has stored what the backlog could not reach (events stamped
// before the cursor), folding once each match stored meanwhile. After a
// restart, a ruling made on what one relay sent while another was still
// sending would be public, signed, and wrong.
//
// The fold itself does not wait for the sync: once every relay has sent
// its backlog, what is stored is folded (and shown), and what the sync
// brings later is folded as it comes. Only the duties wait for both.
func (l *loop) openGate(ctx context.Context) error {
	if !l.clientReady {
		return nil
	}
	if !l.folded {
		l.folded = true
		players, err := l.n.foldBackfill(ctx, l.unfolded)
		if err != nil {
			return err
		}
		l.client.WatchAuthors(players...)
		l.askChallengers(ctx, sortedIDs(l.unfolded))
		l.n.log.Info("relays backfilled, stored matches folded", "matches_folded", len(l.unfolded))
		l.unfolded = nil
	}
	if l.backfilled || !l.firstSynced {
		return nil
	}
	l.backfilled = true
	// Operators and tests wait for this line: the duties begin.
	l.n.log.Info("relays backfilled and synced")
	l.quiet.Reset(time.Second)
	return nil
}

// stepQuiet: a second has passed without events.
func (l *loop) stepQuiet(ctx context.Context) { l.runDuties(ctx) }

// stepTick runs the duties when the last event is a second old, or when
// they have not run for two ticks: a relay that drips an event every half
// second would keep the quiet second from ever coming (the backfill is
// over by then; what is stored is whole). It also lets the matches that
// expired or went dormant leave memory, and counts the statuses.
func (l *loop) stepTick(ctx context.Context) {
	now := l.wall()
	if now.Sub(l.lastEvent) >= time.Second || now.Sub(l.lastDuties) >= 2*l.o.Tick {
		l.runDuties(ctx)
	}
	l.n.evict(l.n.clock())
	if l.n.met != nil {
		l.n.met.statuses(l.n.statusCounts(ctx))
	}
}

// stepSite rebuilds the site from the matches that changed.
func (l *loop) stepSite(ctx context.Context) { l.n.buildSiteLogged(ctx, l.o) }

// runDuties runs a pass of duties, unless the backfill gate is still
// shut: no duty before the first backfill.
func (l *loop) runDuties(ctx context.Context) {
	if !l.backfilled {
		return
	}
	l.n.duties(ctx, l.poke)
	l.lastDuties = l.wall()
}

// poke wakes the publisher, unless a wake is pending already.
func (l *loop) poke() {
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

// stash stores classified items without folding them, adding the
// matches they touched to unfolded (for foldBackfill).
func (n *Daemon) stash(ctx context.Context, items []item, now int64, unfolded map[string]bool) error {
	fresh, err := n.putItems(ctx, items, now, false)
	if err != nil {
		return err
	}
	for _, it := range fresh {
		for _, m := range it.Matches {
			unfolded[m] = true
		}
	}
	return nil
}

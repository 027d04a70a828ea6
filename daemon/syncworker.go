package daemon

import (
	"context"
	"sort"
	"sync"
	"time"

	"vesper/internal/pause"
	"vesper/nostr/relay"
)

// syncWorker runs the relay syncs one at a time: every relay at start,
// a relay again after each of its reconnects (but the first connect of a
// relay the start's sync covered), every relay each o.SyncEvery, and the
// fallback on every relay for matches revealed by a live event. Each
// run's events go to out, then its outcome to done and a marker to out.
func (n *Daemon) syncWorker(ctx context.Context, o Options, out chan<- relay.Received, reconnected <-chan string, reveal <-chan []string, done chan<- syncRun, met *syncMetrics) {
	s := newSyncer(n, o, out, done, met)
	if err := n.st.PrepareSync(ctx); err != nil && ctx.Err() == nil {
		n.log.Error("sync: preparing the store", "err", err) // the sync runs, only slower
	}
	s.first(ctx)
	// The periodic full sync runs here, between the other syncs, never
	// beside one: SyncEvery after the start's sync and after each run.
	full := make(chan pause.Run)
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { pause.After(ctx, s.every, pause.On(full, s.full)) })
	for {
		select {
		case <-ctx.Done():
			return
		case u := <-reconnected:
			s.connected(u)
			s.connectedAll(reconnected)
			s.runDue(ctx)
		case <-s.retry:
			s.runDue(ctx)
		case ms := <-reveal:
			s.run(ctx, nil, ms)
		case r := <-full:
			r.Do()
		}
	}
}

// syncer is the sync worker's state between two syncs.
type syncer struct {
	n    *Daemon
	o    Options
	out  chan<- relay.Received
	done chan<- syncRun
	met  *syncMetrics

	every, fullEvery, reconnectGap time.Duration
	wall                           func() time.Time // time.Now but in tests

	covered map[string]bool      // relays the first sync reached, whose first connect needs no sync
	lastRun map[string]time.Time // when each relay was last synced
	pending map[string]bool      // reconnected relays waiting out their gap
	retry   <-chan time.Time     // when the first of pending is due
}

func newSyncer(n *Daemon, o Options, out chan<- relay.Received, done chan<- syncRun, met *syncMetrics) *syncer {
	s := &syncer{n: n, o: o, out: out, done: done, met: met, wall: time.Now,
		every: o.SyncEvery, fullEvery: o.FullScanEvery, reconnectGap: o.ReconnectGap,
		covered: map[string]bool{}, lastRun: map[string]time.Time{}, pending: map[string]bool{}}
	if s.every <= 0 {
		s.every = time.Hour
	}
	if s.reconnectGap <= 0 {
		s.reconnectGap = time.Minute
	}
	if s.fullEvery <= 0 {
		s.fullEvery = 24 * time.Hour
	}
	return s
}

// run syncs relays (nil: all) for matches (nil: everything), then hands
// its outcome to done and its marker to out.
func (s *syncer) run(ctx context.Context, relays, matches []string) syncRun {
	opts := s.n.syncOptions(ctx, s.fullEvery, false)
	opts.NoNIP77 = s.o.NoNIP77
	if matches != nil {
		opts.Matches, opts.FallbackOnly = matches, true
	}
	// Duties wait for the first sync: a relay that stalls must not hold
	// them for long.
	opts.RelayTimeout = 5 * time.Minute
	if relays != nil {
		opts.Relays = relays
	}
	r := s.n.sync(ctx, opts, s.out, s.met)
	if r.err != nil && ctx.Err() == nil {
		s.n.log.Error("sync", "err", r.err)
	}
	select {
	case s.done <- r:
	case <-ctx.Done():
		return r
	}
	select {
	case s.out <- relay.Received{}:
	case <-ctx.Done():
	}
	return r
}

// first is the start's sync of every relay.
func (s *syncer) first(ctx context.Context) {
	at := s.wall()
	for _, st := range s.run(ctx, nil, nil).stats {
		s.covered[st.Relay] = st.Error == ""
		s.lastRun[st.Relay] = at
	}
}

// full is the periodic sync of every relay.
func (s *syncer) full(ctx context.Context) {
	at := s.wall()
	for _, st := range s.run(ctx, nil, nil).stats {
		s.lastRun[st.Relay] = at
	}
}

// connected queues u for a sync, unless it is the first connect of a
// relay the start's sync covered.
func (s *syncer) connected(u string) {
	if s.covered[u] {
		s.covered[u] = false // later connects are reconnects
		return
	}
	s.pending[u] = true
}

// connectedAll takes the other connects waiting, coalesced into one run.
func (s *syncer) connectedAll(reconnected <-chan string) {
	for {
		select {
		case u := <-reconnected:
			s.connected(u)
		default:
			return
		}
	}
}

// runDue syncs the pending relays whose gap since their last sync has
// passed, and sets retry for the others.
func (s *syncer) runDue(ctx context.Context) {
	var due []string
	var next time.Duration
	for u := range s.pending {
		if wait := s.reconnectGap - s.wall().Sub(s.lastRun[u]); wait > 0 {
			if next == 0 || wait < next {
				next = wait
			}
			continue
		}
		due = append(due, u)
		delete(s.pending, u)
	}
	if len(due) > 0 {
		sort.Strings(due)
		at := s.wall()
		s.run(ctx, due, nil)
		for _, u := range due {
			s.lastRun[u] = at
		}
	}
	s.retry = nil
	if len(s.pending) > 0 {
		s.retry = time.After(next)
	}
}

// syncSink stores what a one-off sync (SyncOnce) sends, a transaction for
// each 500 events or each pause in the stream, and lists the matches they
// touched, for one fold each at the end.
type syncSink struct {
	n       *Daemon
	batch   []relay.Received
	touched map[string]bool
	stored  int   // new events stored
	err     error // the first store error; what comes after it is dropped
}

// drain stores what recv sends until it is closed.
func (s *syncSink) drain(ctx context.Context, recv <-chan relay.Received) {
	s.batch = make([]relay.Received, 0, 500)
	for r := range recv {
		s.batch = append(s.batch, r)
		if len(s.batch) == cap(s.batch) || len(recv) == 0 {
			s.flush(ctx)
		}
	}
	s.flush(ctx)
}

func (s *syncSink) flush(ctx context.Context) {
	defer func() { s.batch = s.batch[:0] }()
	if len(s.batch) == 0 || s.err != nil {
		return
	}
	fresh, err := s.n.put(ctx, s.batch, s.n.clock())
	if err != nil {
		s.err = err
	}
	s.stored += len(fresh)
	for _, it := range fresh {
		for _, m := range it.Matches {
			s.touched[m] = true
		}
	}
}

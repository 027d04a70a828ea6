package reconcile

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/netguard"
	"vesper/nostr/relay/internal/wire"
	"vesper/nostr/relay/limits"
)

// Sync brings a local store up to date with relays whatever the
// created_at of what it lacks (PROTOCOL.md section 7, "complete reads"):
// a relay filters since/until on created_at, not on arrival, so a cursor
// misses every event stamped before it that reached the relay later.
//
// Relays that speak NIP-77 are reconciled first: the store's (created_at,
// id) set for each game filter against the relay's, and exactly the
// missing events are fetched by id. A relay's set that looks cut at a cap,
// or that the relay refuses as too many, is reconciled again in halves of
// its created_at window (split.go). Every other relay gets the fallback,
// whose cost grows with the open matches and the downtime rather than
// history: every event of each match Options.Open lists or that a relay
// has just revealed (by "#g", paged), the challenges since
// Options.ChallengesSince, the match kinds since Options.MatchesSince
// (and then the whole of each match they name), and the challenges those
// reveal.
//
// Every event goes through the client's own gate (nostr.ParseEvent, id,
// batch signature check, the filter it was asked for) and is sent on out
// as a relay.Received from that relay, so the consumer stores it with its own
// receipt time as seen_at. Events the store already has (Options.Known)
// are not sent.

// chunkSize bounds the ids or "#g" values of one filter: relays limit the
// size of a message and of a filter.
const chunkSize = 100

// Sync reconciles the store with every relay (see the comment at the top
// of this file) and returns a Stats per relay, in opts.Relays order.
// It returns an error only when the options are unusable or the local
// store fails; a relay that fails or lies is reported in its Stats,
// and the others go on.
func Sync(ctx context.Context, opts Options, out chan<- wire.Received) ([]Stats, error) {
	if (opts.Local == nil && (opts.Windows == nil || opts.LocalIn == nil)) || opts.Open == nil || opts.Known == nil {
		return nil, errors.New("relay: sync needs Local, Open and Known")
	}
	opts = opts.withDefaults()
	relays := wire.NormalizeURLs(opts.Relays)
	if len(relays) == 0 {
		return nil, errors.New("relay: no relays configured")
	}
	s := newSyncer(opts, out, len(relays))
	for i, u := range relays {
		s.stats[i] = Stats{Relay: u, Method: "fallback"}
	}
	// Phase 1: NIP-77 where the relay offers it, all relays at once.
	fallback := make([]bool, len(relays))
	var wg sync.WaitGroup
	for i := range relays {
		if opts.FallbackOnly || opts.NoNIP77 {
			fallback[i] = true
			continue
		}
		wg.Go(func() { fallback[i] = !s.nip77(ctx, &s.stats[i]) })
	}
	wg.Wait()
	if err := s.storeErr(); err != nil {
		return s.stats, err
	}
	// Phase 2: the fallback on the others, for the open matches and every
	// match phase 1 revealed.
	if !slices.Contains(fallback, true) {
		return s.stats, nil
	}
	matches := slices.Clone(opts.Matches)
	if !opts.FallbackOnly {
		open, err := opts.Open(ctx)
		if err != nil {
			return s.stats, fmt.Errorf("relay: sync: open matches: %w", err)
		}
		matches = append(matches, open...)
	}
	for _, st := range s.stats {
		matches = append(matches, st.Revealed...)
	}
	slices.Sort(matches)
	matches = slices.Compact(matches)
	for i := range relays {
		if fallback[i] {
			wg.Go(func() { s.fallback(ctx, &s.stats[i], matches) })
		}
	}
	wg.Wait()
	return s.stats, s.storeErr()
}

func newSyncer(opts Options, out chan<- wire.Received, relays int) *syncer {
	s := &syncer{opts: opts, out: out, stats: make([]Stats, relays), sessions: make(chan struct{}, opts.MaxSessions), budgets: map[string]*relayBudget{}}
	s.totalIDs.Store(int64(opts.TotalIDs))
	return s
}

type syncer struct {
	opts  Options
	out   chan<- wire.Received
	stats []Stats

	// The store's (created_at, id) sets by filter, read once, and only if
	// some relay speaks NIP-77: reading them costs in proportion to
	// history, which a sync by the fallback alone must not.
	localOnce sync.Once
	local     map[string][]Item
	localErr  error

	mu     sync.Mutex
	errLoc error // the first failure of the local store

	budgets  map[string]*relayBudget // by relay, with mu
	totalIDs atomic.Int64            // ids the relays may still hold (Options.TotalIDs)
	sessions chan struct{}           // a slot per NIP-77 session open (Options.MaxSessions)
}

// guardOf is url's dial policy: netguard's for a relay in Strangers, nil
// (as written) for the others.
func (s *syncer) guardOf(url string) *netguard.Policy {
	if !slices.Contains(wire.NormalizeURLs(s.opts.Strangers), url) {
		return nil
	}
	return &netguard.Policy{AllowPrivate: s.opts.AllowPrivate}
}

// budgetFor is url's budget for this Sync, the same for its NIP-77
// sessions, its fetches and its fallback.
func (s *syncer) budgetFor(url string) *relayBudget {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rb := s.budgets[url]; rb != nil {
		return rb
	}
	b := s.opts.Budget
	if slices.Contains(wire.NormalizeURLs(s.opts.Strangers), url) {
		b = s.opts.StrangerBudget
	}
	rb := newRelayBudget(b, &s.totalIDs)
	s.budgets[url] = rb
	return rb
}

// session runs one NIP-77 session within Options.MaxSessions.
func (s *syncer) session(ctx context.Context, url string, f gn.Filter, items []Item, o negOptions) (negResult, error) {
	select {
	case s.sessions <- struct{}{}:
	case <-ctx.Done():
		return negResult{}, ctx.Err()
	}
	defer func() { <-s.sessions }()
	return negReconcile(ctx, url, f, items, o)
}

func (s *syncer) localSets(ctx context.Context) (map[string][]Item, error) {
	s.localOnce.Do(func() {
		s.local = map[string][]Item{}
		for _, f := range syncFilters() {
			items, err := s.opts.Local(ctx, f.Kinds)
			if err != nil {
				s.localErr = fmt.Errorf("relay: sync: local ids: %w", err)
				s.failLocal(s.localErr)
				return
			}
			s.local[fmt.Sprint(f.Kinds)] = items
		}
	})
	return s.local, s.localErr
}

func (s *syncer) storeErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.errLoc
}

func (s *syncer) failLocal(err error) {
	s.mu.Lock()
	if s.errLoc == nil {
		s.errLoc = err
	}
	s.mu.Unlock()
}

// syncFilters are the game filters of the client (challenges by topic, the
// match kinds), without the profiles: the client fetches every watched
// profile whole on each connect, whatever its created_at.
func syncFilters() []gn.Filter {
	return wire.GameFilters(nil)
}

// relaySession is what a relay's work shares: its connection for REQs,
// the counts, and the events' way out.
type relaySession struct {
	s       *syncer
	st      *Stats
	url     string
	cn      *wire.Conn
	p       *wire.Pager
	refused atomic.Int64
	log     *slog.Logger
	sent    map[string]bool // ids sent on out from this relay in this run
	budget  *relayBudget
	pages   int // left of budget.Pages while the session is open
}

func (s *syncer) open(ctx context.Context, st *Stats) (*relaySession, error) {
	rs := &relaySession{s: s, st: st, url: st.Relay, log: s.opts.Logger.With("relay", st.Relay), sent: map[string]bool{}}
	rs.budget = s.budgetFor(st.Relay)
	rs.pages = int(max(0, rs.budget.pages.Load()))
	guard := s.guardOf(st.Relay)
	info := limits.GetVia(ctx, st.Relay, s.opts.DialTimeout, guard)
	p := &wire.Pager{Key: s.opts.Key, Timeout: s.opts.QueryTimeout, Budget: &rs.pages}
	p.Limit, p.CapKnown = info.PageLimit(s.opts.PageLimit)
	dctx, cancel := context.WithTimeout(ctx, s.opts.DialTimeout)
	cn, err := wire.Dial(dctx, st.Relay, rs.log, func(reason string) {
		rs.refused.Add(1)
		if s.opts.OnReject != nil {
			s.opts.OnReject(st.Relay, reason)
		}
	}, wire.Limits{Guard: guard})
	cancel()
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { cn.Close(context.Cause(ctx)) })
	go func() {
		<-cn.Ctx.Done()
		stop()
	}()
	if info.AuthRequired() {
		if err := cn.AuthFirst(ctx, s.opts.Key, s.opts.QueryTimeout); err != nil && cn.Ctx.Err() != nil {
			cn.Close(wire.ErrClosed)
			return nil, err
		}
	}
	p.Conn = cn
	rs.cn, rs.p = cn, p
	return rs, nil
}

func (rs *relaySession) close() {
	rs.budget.pages.Store(int64(rs.pages))
	rs.cn.Close(wire.ErrClosed)
	rs.st.Refused += int(rs.refused.Load())
}

func (rs *relaySession) progress(phase string) {
	if rs.s.opts.Progress != nil {
		rs.s.opts.Progress(Progress{Relay: rs.url, Phase: phase, Fetched: rs.st.Fetched})
	}
}

// query runs f through the pager and sends on out every event the store
// lacks, a batch at a time as pages arrive (one Known lookup per batch,
// not per event; and a kill mid-way loses only the batch in flight). It
// returns the events sent; on the fallback every event the relay sent
// counts as compared.
func (rs *relaySession) query(ctx context.Context, f gn.Filter) ([]*gn.Event, error) {
	var (
		mu        sync.Mutex
		buf, sent []*gn.Event
		serr      error
		over      bool
	)
	flush := func() { // with mu held
		if serr == nil && len(buf) > 0 {
			var s []*gn.Event
			s, serr = rs.send(ctx, buf)
			sent = append(sent, s...)
		}
		buf = buf[:0]
	}
	// deliver runs on the connection's dispatcher goroutine; blocking
	// there is how the client, too, slows a relay down to the consumer's
	// pace. The lock and over are for events a relay sends after its EOSE,
	// which may still be on their way when run has returned.
	// A query by ids is done once each id has come: without that bound
	// the pager asks again below the page's oldest second, and again,
	// until a page brings nothing (four REQs a chunk at 10,000 matches).
	qctx, stop := context.WithCancel(ctx) // stopped once the events budget is spent
	defer stop()
	_, err := rs.p.Run(qctx, f, len(f.IDs), func(ev *gn.Event) {
		mu.Lock()
		defer mu.Unlock()
		if over {
			return
		}
		if rs.st.Method == "fallback" {
			rs.st.Compared++
		}
		if !rs.budget.takeEvent() {
			over = true // the rest of this relay's events wait for the next sync
			stop()
			return
		}
		buf = append(buf, ev)
		if len(buf) >= sendBatch {
			flush()
		}
	})
	mu.Lock()
	defer mu.Unlock()
	spent := over
	over = true
	flush()
	switch {
	case serr != nil:
		return sent, serr
	case spent || errors.Is(err, wire.ErrBudget):
		return sent, ErrPageBudget
	}
	return sent, err
}

// sendBatch is how many fetched events share one Known lookup.
const sendBatch = 200

func (rs *relaySession) send(ctx context.Context, evs []*gn.Event) ([]*gn.Event, error) {
	var sent []*gn.Event
	for chunk := range slices.Chunk(evs, 500) {
		ids := make([]string, len(chunk))
		for i, ev := range chunk {
			ids[i] = ev.ID
		}
		known, err := rs.s.opts.Known(ctx, ids)
		if err != nil {
			rs.s.failLocal(fmt.Errorf("relay: sync: known ids: %w", err))
			return sent, err
		}
		for _, ev := range chunk {
			// The consumer may not have stored what this run sent yet.
			if known[ev.ID] || rs.sent[ev.ID] {
				continue
			}
			rs.sent[ev.ID] = true
			r := wire.Received{Event: ev, Relay: rs.url}
			select {
			case rs.s.out <- r:
			case <-ctx.Done():
				return sent, ctx.Err()
			}
			sent = append(sent, ev)
			rs.st.Fetched++
		}
	}
	return sent, nil
}

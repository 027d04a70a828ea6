package reconcile

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gn "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip11"

	"vesper/internal/netguard"
	"vesper/nostr"
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

// Options configure Sync. Zero durations and limits take the defaults
// in brackets.
type Options struct {
	Relays []string
	// Local lists the stored events of kinds (for NIP-77). Required.
	Local func(ctx context.Context, kinds []int) ([]Item, error)
	// Windows, when set, splits each NIP-77 reconciliation into created_at
	// windows (together covering every created_at), and LocalIn lists the
	// stored events of kinds within one: a reconciliation then holds one
	// window's ids in memory, not the whole history's. Local is not used.
	Windows func(ctx context.Context, kinds []int) ([]Window, error)
	LocalIn func(ctx context.Context, kinds []int, w Window) ([]Item, error)
	// Open lists the matches the fallback asks about by name: those whose
	// result is not final, less any MatchesSince covers. Required.
	Open func(ctx context.Context) ([]string, error)
	// Known reports which ids are stored. Required.
	Known func(ctx context.Context, ids []string) (map[string]bool, error)
	// ChallengesSince is, per relay, the created_at from which the fallback
	// asks for challenges: the last completed sync minus the 7-day expiry
	// covers every challenge still open. 0 scans all of them (a first
	// sync, or the daily full scan). nil means 0.
	ChallengesSince func(relay string) int64
	// MatchesSince is, per relay, the created_at from which the fallback
	// asks for every event of the match kinds, whatever match it names
	// (0: not asked). Open may then leave out matches that rarely change
	// (dormant ones): a new event of one comes in this window, and the
	// fallback then asks about its match whole.
	MatchesSince func(relay string) int64
	// Matches are more matches the fallback asks every relay about (ones
	// the caller has seen named by an event whose challenge it lacks).
	Matches []string
	// NoNIP77 skips NIP-77 and uses the fallback on every relay.
	NoNIP77 bool
	// FallbackOnly, when set, limits the run to the fallback for Matches
	// (no NIP-77, no open matches, no challenge scan).
	FallbackOnly bool

	Key       nostr.SecretKey // answers NIP-42 AUTH on every connection, NIP-77 sessions too
	PageLimit int             // "limit" per query, lowered by NIP-11 max_limit [500]
	// RelayTimeout bounds all the work on one relay [10m].
	RelayTimeout time.Duration
	QueryTimeout time.Duration // silence before a query or a NEG-MSG is given up [30s]
	// ProbeTimeout is the wait for the answer to NEG-OPEN from a relay that
	// does not list NIP 77 in its NIP-11 document [3s].
	ProbeTimeout time.Duration
	DialTimeout  time.Duration // websocket and NIP-11 connect [10s]
	MaxRounds    int           // NEG-MSG exchanges per filter [64]
	Logger       *slog.Logger  // [discard]
	// OnReject is called for every event a relay sent that is refused.
	OnReject func(relay, reason string)
	// Progress, if set, is called as work is done (from several
	// goroutines, one relay each).
	Progress func(Progress)

	// Budget bounds the NIP-77 work of each relay [DefaultBudget], and
	// StrangerBudget that of each relay in Strangers
	// [DefaultStrangerBudget]: relays someone else named (players' NIP-65
	// relay lists), which may answer with ids without end. A relay that
	// uses its budget has what it claimed so far fetched and the rest left
	// to the next sync (Stats.NegError says so).
	Budget, StrangerBudget Budget
	Strangers              []string
	// TotalIDs bounds the ids all relays' reconciliations hold at once
	// [DefaultTotalIDs], and MaxSessions the NIP-77 sessions open at once
	// [DefaultMaxSessions].
	TotalIDs, MaxSessions int
	// Strangers are dialed through internal/netguard, which refuses
	// private, loopback, link-local and other internal addresses after
	// resolution, unless AllowPrivate (the operator's
	// --allow-private-relays); the others are dialed as written.
	AllowPrivate bool
}

// Window is a created_at range [Since, Until], both inclusive; zero
// leaves that end open.
type Window struct {
	Since, Until int64
}

// Progress is a step of Sync on one relay.
type Progress struct {
	Relay   string
	Phase   string // "nip77", "fetch", "challenges", "matches"
	Fetched int    // new events sent on out so far, on this relay
}

// Stats is what Sync did on one relay.
type Stats struct {
	Relay string `json:"relay"`
	// Method is "nip77" or "fallback" (also when NIP-77 failed and the
	// fallback ran instead).
	Method string `json:"method"`
	// Compared is the number of ids reconciled (NIP-77: the local set of
	// every filter) or of events the relay sent (fallback).
	Compared int `json:"compared"`
	Fetched  int `json:"fetched"` // new events sent on out
	Refused  int `json:"refused"` // events the relay sent that failed the checks
	// Missing counts ids the relay claimed in NIP-77 but did not send,
	// though asked twice (the second time by id alone), and MissingIDs
	// names the first maxMissingIDs of them: `vesper sync` then exits
	// non-zero naming them.
	Missing    int      `json:"missing"`
	MissingIDs []string `json:"missing_ids,omitempty"`
	Rounds     int      `json:"rounds"`
	Bytes      int64    `json:"nip77_bytes"` // NIP-77 messages, both ways
	Error      string   `json:"error,omitempty"`
	// Splits counts the NIP-77 windows halved because the relay's set in
	// them looked cut at a cap or the relay answered "too many" (split.go);
	// Paged, the one-second windows still cut, read by REQ instead.
	Splits int `json:"nip77_splits,omitempty"`
	Paged  int `json:"nip77_paged,omitempty"`
	// Check is what the NIP-77 check of this sync saw (calibrate.go):
	// "n/n" or "cut at n" when the relay's NIP-77 view was trusted, else
	// why not (then NegError says so too and Method is "fallback").
	Check string `json:"nip77_check,omitempty"`
	// NegError is why NIP-77 was not used on a relay that may offer it.
	NegError string        `json:"nip77_error,omitempty"`
	Elapsed  time.Duration `json:"-"`
	// Revealed are the matches the new events from this relay name (NIP-77)
	// or the new challenges it sent (fallback): Sync asks the relays
	// without NIP-77 about the former.
	Revealed []string `json:"-"`
	// Untrusted: the NIP-77 check failed (Check says why), so the relay
	// was paged, every challenge scanned.
	Untrusted bool `json:"nip77_untrusted,omitempty"`
	// AuthRequired: the relay refused to be read without NIP-42 AUTH, and
	// there was no key to authenticate with.
	AuthRequired bool `json:"auth_required,omitempty"`
}

func (o Options) withDefaults() Options {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.RelayTimeout, 10*time.Minute)
	def(&o.QueryTimeout, 30*time.Second)
	def(&o.ProbeTimeout, 3*time.Second)
	def(&o.DialTimeout, 10*time.Second)
	if o.PageLimit <= 0 {
		o.PageLimit = 500
	}
	if o.MaxRounds <= 0 {
		o.MaxRounds = 64
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.Budget = o.Budget.or(DefaultBudget)
	o.StrangerBudget = o.StrangerBudget.or(DefaultStrangerBudget)
	if o.TotalIDs <= 0 {
		o.TotalIDs = DefaultTotalIDs
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.ChallengesSince == nil {
		o.ChallengesSince = func(string) int64 { return 0 }
	}
	return o
}

// negRetries is how many times a reconciliation that the relay lost
// (sessionLost) is started again.
const negRetries = 3

// sessionLost says a NEG-ERR reason is a relay's word that it holds no
// such session: khatru's bare "CLOSED", or "closed: unknown subscription
// handle" as strfry and vesper's relayd say it.
func sessionLost(reason string) bool {
	return reason == "CLOSED" || strings.HasPrefix(reason, "closed: unknown subscription")
}

// chunkSize bounds the ids or "#g" values of one filter: relays limit the
// size of a message and of a filter.
const chunkSize = 100

// maxMissingIDs bounds the ids Stats.MissingIDs names.
const maxMissingIDs = 20

// maxRevealRounds bounds how many times the fallback tracks matches named
// by the events it has just fetched: a relay that answers each query with
// events naming new matches cannot keep it busy for ever.
const maxRevealRounds = 3

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

// nip77 reconciles one relay; false means it needs the fallback.
func (s *syncer) nip77(ctx context.Context, st *Stats) bool {
	start := time.Now()
	defer func() { st.Elapsed += time.Since(start) }()
	ctx, cancel := context.WithTimeout(ctx, s.opts.RelayTimeout)
	defer cancel()
	log := s.opts.Logger.With("relay", st.Relay)
	info := limits.GetVia(ctx, st.Relay, s.opts.DialTimeout, s.guardOf(st.Relay)).Doc
	o := negOptions{maxRounds: s.opts.MaxRounds, first: s.opts.QueryTimeout, silence: s.opts.QueryTimeout, dial: s.opts.DialTimeout}
	o.key = s.opts.Key // NIP-77 sessions authenticate as the REQs do
	o.budget, o.guard = s.budgetFor(st.Relay), s.guardOf(st.Relay)
	// What the relay claimed is dropped when this returns: fetched, or
	// forgotten with a failure.
	defer o.budget.release()
	if !listsNIP77(info) && !s.probe(ctx, st, o) {
		return false
	}
	// The windows a relay cut are halved (split.go): diffs are the
	// windows reconciled whole, and those paged instead.
	sp := &negSplitter{s: s, st: st, o: o, log: log, sessions: negSessionBudget, deadline: time.Now().Add(negSplitTime)}
	if info != nil && info.Limitation != nil {
		sp.maxLimit = info.Limitation.MaxLimit
	}
	// Trusted only on evidence (calibrate.go): a relay whose NIP-77 view
	// leaves out what its REQs read is paged instead.
	c, err := s.calibrate(ctx, st, o, sp.maxLimit)
	st.Check = c.Note
	if err != nil {
		st.NegError, st.Check = err.Error(), "failed"
		log.Warn("relay: NIP-77 check failed, falling back", "err", err)
		return false
	}
	if !c.Trusted {
		st.NegError, st.Untrusted = "NIP-77 not trusted: "+c.Note, true
		log.Warn("relay: NIP-77 view differs from the REQ view; paging instead", "check", c.Note)
		return false
	}
	diffs, ok := s.reconcileAll(ctx, st, sp)
	if !ok {
		return false
	}
	if st.Splits > 0 {
		log.Info("relay: NIP-77 windows split where the relay's set looked cut", "splits", st.Splits, "paged", st.Paged)
	}
	if !slices.ContainsFunc(diffs, func(d negLeaf) bool { return len(d.need) > 0 || d.page }) {
		return true // in step: nothing to fetch
	}
	s.fetchDiffs(ctx, st, diffs, log)
	return true
}

// listsNIP77 reports that a relay's NIP-11 document lists NIP 77.
func listsNIP77(info *nip11.RelayInformationDocument) bool {
	return info != nil && slices.ContainsFunc(info.SupportedNIPs, func(n any) bool {
		f, ok := n.(float64) // JSON numbers
		return ok && f == 77 || n == 77
	})
}

// probe asks a relay that does not list NIP 77 whether it speaks it, with
// a filter that matches nothing, which costs neither side a set, and
// waits ProbeTimeout at most.
func (s *syncer) probe(ctx context.Context, st *Stats, o negOptions) bool {
	o.first = s.opts.ProbeTimeout
	res, err := s.session(ctx, st.Relay, gn.Filter{IDs: []string{wire.NoEvent}}, nil, o)
	st.Rounds += res.rounds
	st.Bytes += res.bytes
	if err != nil {
		st.NegError = err.Error()
		return false
	}
	return true
}

// reconcileAll reconciles every game filter, window by window, and
// returns the leaves to fetch, ordered by filter; false means the relay
// needs the fallback.
func (s *syncer) reconcileAll(ctx context.Context, st *Stats, sp *negSplitter) ([]negLeaf, bool) {
	var diffs []negLeaf
	compared := 0
	for _, f := range syncFilters() {
		windows, items, err := s.windows(ctx, f.Kinds)
		if err != nil {
			st.NegError = err.Error()
			return nil, false
		}
		for _, w := range windows {
			if items == nil {
				if items, err = s.opts.LocalIn(ctx, f.Kinds, w.asked()); err != nil {
					err = fmt.Errorf("relay: sync: local ids: %w", err)
					s.failLocal(err)
					st.NegError = err.Error()
					return nil, false
				}
			}
			leaves, err := sp.reconcile(ctx, f, w, items)
			if errors.Is(err, ErrNegBudget) {
				// The relay's claims so far are fetched; no more windows.
				st.Method, st.Compared = "nip77", compared
				return byFilter(append(diffs, leaves...)), true
			}
			if err != nil {
				return nil, false
			}
			compared += countFrom(items, w.Since) // not the second before (asked)
			diffs = append(diffs, leaves...)
			if s.opts.Windows != nil {
				items = nil // the next window's are read next
			}
		}
	}
	st.Method, st.Compared = "nip77", compared
	return byFilter(diffs), true
}

// fetchDiffs fetches what reconciliation found missing, through the
// strict gate, and counts the ids the relay listed and did not send. A
// failure is recorded in st: the relay is reconciled, and the next sync
// fetches.
func (s *syncer) fetchDiffs(ctx context.Context, st *Stats, diffs []negLeaf, log *slog.Logger) {
	rs, err := s.open(ctx, st)
	if err != nil {
		st.Error = err.Error()
		log.Warn("relay: sync fetch failed", "err", err)
		return
	}
	defer rs.close()
	rs.progress("nip77")
	sentIDs := map[string]bool{}
	var revealed []string
	note := func(sent []*gn.Event) {
		for _, ev := range sent {
			sentIDs[ev.ID] = true
			if ev.Kind == nostr.KindChallenge {
				revealed = append(revealed, ev.ID)
			}
			revealed = append(revealed, matchRefs(ev)...)
		}
	}
	for _, d := range diffs {
		if err := rs.fetchLeaf(ctx, d, note); err != nil {
			st.Error = err.Error()
			log.Warn("relay: sync fetch failed", "err", err)
			return
		}
	}
	// An id listed and not sent is asked for again, alone with its
	// kinds and no window: a window's bounds may have left it out (a
	// store that reads since as exclusive, an event on a split window's
	// first second), and a relay that has it then sends it.
	if again := s.unsent(ctx, st, diffs, sentIDs); len(again) > 0 {
		for _, d := range again {
			if err := rs.fetchLeaf(ctx, d, note); err != nil {
				st.Error = err.Error()
				log.Warn("relay: sync fetch failed", "err", err)
				return
			}
		}
	}
	slices.Sort(revealed)
	st.Revealed = slices.Compact(revealed)
	s.countMissing(ctx, st, diffs, sentIDs, log)
}

// unsent are the ids listed in diffs, not sent and not stored, as leaves
// by kinds without a window.
func (s *syncer) unsent(ctx context.Context, st *Stats, diffs []negLeaf, sentIDs map[string]bool) []negLeaf {
	byKinds := map[string]*negLeaf{}
	var order []string
	for _, d := range diffs {
		var ids []string
		for _, id := range d.need {
			if !sentIDs[id] {
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			continue
		}
		known, err := s.opts.Known(ctx, ids)
		if err != nil {
			s.failLocal(err)
			return nil
		}
		k := fmt.Sprint(d.base.Kinds)
		l := byKinds[k]
		if l == nil {
			l = &negLeaf{f: gn.Filter{Kinds: d.base.Kinds}}
			byKinds[k] = l
			order = append(order, k)
		}
		for _, id := range ids {
			if !known[id] && !slices.Contains(l.need, id) {
				l.need = append(l.need, id)
			}
		}
	}
	var out []negLeaf
	for _, k := range order {
		if len(byKinds[k].need) > 0 {
			out = append(out, *byKinds[k])
		}
	}
	return out
}

// fetchLeaf fetches one leaf: by id, in chunks, or, for a second the
// relay would not reconcile whole, every event of it as far as its REQs
// reach.
func (rs *relaySession) fetchLeaf(ctx context.Context, d negLeaf, note func([]*gn.Event)) error {
	if d.page {
		sent, err := rs.query(ctx, d.f)
		note(sent)
		rs.progress("fetch")
		return err
	}
	for chunk := range slices.Chunk(d.need, min(chunkSize*5, rs.p.Limit)) {
		// The ids and the filter together: an id the relay listed for
		// this filter must be an event this filter matches, or the
		// gate refuses it as unrequested.
		f := d.f
		f.IDs = slices.Clone(chunk)
		sent, err := rs.query(ctx, f)
		note(sent)
		rs.progress("fetch")
		if err != nil {
			return err
		}
	}
	return nil
}

// countMissing counts the ids claimed and not sent that the store lacks:
// an id claimed and not sent may be absent, refused, or already stored by
// the live subscription meanwhile, and only the first two are a relay's
// lie.
func (s *syncer) countMissing(ctx context.Context, st *Stats, diffs []negLeaf, sentIDs map[string]bool, log *slog.Logger) {
	var unsent []string
	for _, d := range diffs {
		for _, id := range d.need {
			if !sentIDs[id] {
				sentIDs[id] = true // listed by both filters: counted once
				unsent = append(unsent, id)
			}
		}
	}
	for chunk := range slices.Chunk(unsent, 500) {
		known, err := s.opts.Known(ctx, chunk)
		if err != nil {
			s.failLocal(err)
			return
		}
		for _, id := range chunk {
			if !known[id] {
				st.Missing++
				if len(st.MissingIDs) < maxMissingIDs {
					st.MissingIDs = append(st.MissingIDs, id)
				}
			}
		}
	}
	if st.Missing > 0 {
		log.Warn("relay: NIP-77 listed events it did not send", "missing", st.Missing)
	}
}

// fallback syncs one relay without NIP-77.
func (s *syncer) fallback(ctx context.Context, st *Stats, matches []string) {
	start := time.Now()
	defer func() { st.Elapsed += time.Since(start) }()
	ctx, cancel := context.WithTimeout(ctx, s.opts.RelayTimeout)
	defer cancel()
	rs, err := s.open(ctx, st)
	if err != nil {
		st.Error, st.AuthRequired = err.Error(), errors.Is(err, wire.ErrAuthNoKey)
		s.opts.Logger.Warn("relay: sync failed", "relay", st.Relay, "err", err)
		return
	}
	defer rs.close()
	if err := rs.runFallback(ctx, matches); err != nil {
		st.Error, st.AuthRequired = err.Error(), errors.Is(err, wire.ErrAuthNoKey)
		rs.log.Warn("relay: sync failed", "err", err)
	}
}

func (rs *relaySession) runFallback(ctx context.Context, matches []string) error {
	var fetched []*gn.Event
	count := func(evs []*gn.Event) { fetched = append(fetched, evs...) }
	if !rs.s.opts.FallbackOnly {
		sent, err := rs.challenges(ctx)
		count(sent)
		if err != nil {
			return err
		}
		// A new challenge is a match to track like the open ones.
		for _, ev := range sent {
			matches = append(matches, ev.ID)
		}
		recent, err := rs.recent(ctx)
		count(recent)
		if err != nil {
			return err
		}
		// A match with a new event is asked about whole: Open may have
		// left it out (dormant).
		for _, ev := range recent {
			matches = append(matches, matchRefs(ev)...)
		}
	}
	asked := map[string]bool{}
	for round := 0; len(matches) > 0 && round < maxRevealRounds; round++ {
		var todo []string
		for _, m := range matches {
			if !asked[m] && nostr.IsLowerHex(m, 64) {
				asked[m] = true
				todo = append(todo, m)
			}
		}
		slices.Sort(todo)
		var next []*gn.Event
		for chunk := range slices.Chunk(todo, chunkSize) {
			sent, err := rs.matchChunk(ctx, chunk, count)
			next = append(next, sent...)
			if err != nil {
				return err
			}
		}
		// Events naming matches not asked about yet (an event with two g
		// tags) are tracked, a bounded number of rounds.
		matches = matches[:0]
		for _, ev := range next {
			for _, m := range matchRefs(ev) {
				if !asked[m] {
					matches = append(matches, m)
				}
			}
		}
	}
	for _, ev := range fetched {
		if ev.Kind == nostr.KindChallenge {
			rs.st.Revealed = append(rs.st.Revealed, ev.ID)
		}
	}
	return nil
}

// challenges fetches the challenges since Options.ChallengesSince.
func (rs *relaySession) challenges(ctx context.Context) ([]*gn.Event, error) {
	f := syncFilters()[0]
	// A relay whose NIP-77 view failed its check is scanned whole: its
	// reconciliation cannot say which old challenges reached it late.
	if since := rs.s.opts.ChallengesSince(rs.url); since > 0 && !rs.st.Untrusted {
		ts := gn.Timestamp(since)
		f.Since = &ts
	}
	rs.progress("challenges")
	return rs.query(ctx, f)
}

// recent fetches the events of the match kinds since
// Options.MatchesSince, if set.
func (rs *relaySession) recent(ctx context.Context) ([]*gn.Event, error) {
	if rs.s.opts.MatchesSince == nil {
		return nil, nil
	}
	since := rs.s.opts.MatchesSince(rs.url)
	if since <= 0 {
		return nil, nil
	}
	ts := gn.Timestamp(since)
	rs.progress("matches")
	return rs.query(ctx, gn.Filter{Kinds: wire.MatchKinds(), Since: &ts})
}

// matchChunk fetches the events of a chunk of matches, and the challenges
// of those the store lacks: by id, and of kind 4420 so that nothing else
// passes for one. It returns the match events; count sees everything
// sent.
func (rs *relaySession) matchChunk(ctx context.Context, chunk []string, count func([]*gn.Event)) ([]*gn.Event, error) {
	rs.progress("matches")
	sent, err := rs.query(ctx, gn.Filter{Kinds: wire.MatchKinds(), Tags: gn.TagMap{nostr.MatchTag: slices.Clone(chunk)}})
	count(sent)
	if err != nil {
		return sent, err
	}
	known, err := rs.s.opts.Known(ctx, chunk)
	if err != nil {
		rs.s.failLocal(err)
		return sent, err
	}
	var lack []string
	for _, m := range chunk {
		if !known[m] && !rs.sent[m] {
			lack = append(lack, m)
		}
	}
	if len(lack) > 0 {
		chs, err := rs.query(ctx, gn.Filter{IDs: lack, Kinds: []int{nostr.KindChallenge}})
		count(chs)
		if err != nil {
			return sent, err
		}
	}
	return sent, nil
}

// matchRefs are the 64-hex g values of an event of the match kinds.
func matchRefs(ev *gn.Event) []string {
	if !nostr.IsStoredWithMatch(ev.Kind) {
		return nil
	}
	var out []string
	for _, m := range nostr.MatchRefs(ev) {
		if nostr.IsLowerHex(m, 64) {
			out = append(out, m)
		}
	}
	return out
}

// windows returns the windows of a reconciliation for kinds: one, open at
// both ends, with the whole local set when Options.Windows is not set
// (items then holds it); else the caller's, whose items LocalIn reads.
func (s *syncer) windows(ctx context.Context, kinds []int) ([]Window, []Item, error) {
	if s.opts.Windows == nil {
		local, err := s.localSets(ctx)
		if err != nil {
			return nil, nil, err
		}
		items := local[fmt.Sprint(kinds)]
		if items == nil {
			items = []Item{}
		}
		return []Window{{}}, items, nil
	}
	ws, err := s.opts.Windows(ctx, kinds)
	if err != nil {
		err = fmt.Errorf("relay: sync: local windows: %w", err)
		s.failLocal(err)
		return nil, nil, err
	}
	if len(ws) == 0 {
		ws = []Window{{}}
	}
	return ws, nil, nil
}

// negWindow reconciles one filter (one window of it) and returns what the
// session learnt: the ids the relay has and the store lacks, and the size
// of the relay's set. An error is recorded in st, except a "too many"
// refusal, which negSplitter answers by splitting the window.
func (s *syncer) negWindow(ctx context.Context, st *Stats, f gn.Filter, items []Item, o negOptions, log *slog.Logger) (negResult, error) {
	var res negResult
	var err error
	for try := 0; ; try++ {
		res, err = s.session(ctx, st.Relay, f, items, o)
		st.Rounds += res.rounds
		st.Bytes += res.bytes
		// khatru v0.19.1 answers NEG-OPEN before it records the session,
		// so our first NEG-MSG, if it comes quickly (a loaded relay that
		// descheduled that goroutine), finds none and gets NEG-ERR
		// "CLOSED" (relayd: "closed: unknown subscription handle"). A new session, with our first answer held back a
		// little longer each time, wins that race.
		var ne *NegError
		if try < negRetries && errors.As(err, &ne) && sessionLost(ne.Reason) && res.rounds == 1 {
			o.pause = 25 * time.Millisecond << (2 * try) // 25, 100, 400 ms
			log.Debug("relay: NIP-77 session lost by the relay, retrying", "pause", o.pause)
			continue
		}
		break
	}
	if err != nil {
		if tooMany(err) {
			return res, err
		}
		if errors.Is(err, ErrNegBudget) {
			log.Warn("relay: NIP-77 budget used; the rest waits for the next sync", "ids", len(res.need), "bytes", st.Bytes)
			st.NegError = err.Error()
			return res, err
		}
		if !errors.Is(err, ErrNegUnsupported) {
			log.Warn("relay: NIP-77 reconciliation failed, falling back", "err", err)
		}
		st.NegError = err.Error()
		return res, err
	}
	return res, nil
}

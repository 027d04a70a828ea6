package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"vesper/arbiter"
	"vesper/match"
	"vesper/nostr"
	"vesper/store"
)

// Daemon is the daemon's state: the store, the folded state of the
// matches it keeps, and the key it acts with. The daemon loop, `arbiter
// --once`, `rebuild` and `demo` all drive one.
type Daemon struct {
	st     *store.Store
	key    nostr.SecretKey // zero: verify only
	self   string
	relays []string
	cfg    arbiter.Config
	log    *slog.Logger
	clock  func() int64
	think  time.Duration // engine budget per move
	met    *metrics
	lim    Limits
	quota  *relayQuota // new challenges per relay per hour
	pairs  pairCounts  // events per (match, author), for the per-author quota
	site   *siteMarks  // matches changed since the site was built

	// recheck makes rebuild check every stored event's id and signature
	// again (`vesper rebuild --verify`): the store holds only events that
	// passed at ingest, so this is for a store that came from elsewhere.
	recheck  bool
	rejected atomic.Int64 // stored events that failed the re-check
	refolds  atomic.Int64 // matches re-folded from the store by ingest (tests: the out-of-order path)
	// recordPasses counts the passes over the game records due (tests).
	recordPasses atomic.Int64

	mu     sync.Mutex
	states map[string]*match.State // the matches kept: neither final nor expired
	// foldMu keeps upgrade's background re-folds (Lock) apart from every
	// other fold (RLock), so that a summary is never written from events
	// older than those another fold just used.
	foldMu sync.RWMutex

	runState
	analyst   *analyst // nil: no analysis
	lists     relayLists
	maxRelays int // the relay client's cap (0: its default)
	// allowPrivate is Config.AllowPrivateRelays, for the relay client's
	// dial guard on the relays followed through NIP-65.
	allowPrivate bool

	// rotAfter is where the next sync goes on asking about the dormant
	// matches in turn (syncMatches), with rotMu.
	rotMu    sync.Mutex
	rotAfter string
}

func newNode(st *store.Store, key nostr.SecretKey, relays []string, cfg arbiter.Config, log *slog.Logger) *Daemon {
	n := &Daemon{st: st, key: key, relays: relays, cfg: cfg, log: log, states: map[string]*match.State{},
		clock: func() int64 { return time.Now().Unix() }, think: 2 * time.Second,
		lim: DefaultLimits(), quota: &relayQuota{}, site: newSiteMarks()}
	if n.cfg.MaxSkew <= 0 {
		n.cfg.MaxSkew = n.lim.MaxSkew
	}
	if !key.IsZero() {
		n.self = key.PublicKey()
	}
	return n
}

// refold folds one match from the store and writes its summary.
func (n *Daemon) refold(ctx context.Context, id string) (*match.State, error) {
	n.refolds.Add(1)
	l, err := n.load(ctx, id)
	if err != nil {
		return nil, err
	}
	return n.foldLoaded(ctx, l)
}

// loaded is a match's stored events, ready to fold.
type loaded struct {
	id   string
	evs  []*nostr.Event
	seen map[string]int64
}

func (n *Daemon) load(ctx context.Context, id string) (loaded, error) {
	stored, err := n.st.MatchEvents(ctx, id)
	if err != nil {
		return loaded{}, err
	}
	l := loaded{id: id, evs: make([]*nostr.Event, 0, len(stored)), seen: make(map[string]int64, len(stored))}
	for _, se := range stored {
		l.evs = append(l.evs, se.Event)
		l.seen[se.Event.ID] = se.SeenAt
	}
	return l, nil
}

func (n *Daemon) foldLoaded(ctx context.Context, l loaded) (*match.State, error) {
	start := time.Now()
	s, err := match.Fold(l.id, l.evs, l.seen)
	n.met.observeFold(time.Since(start))
	if err != nil {
		// No valid match: nothing to keep current, nothing to publish, and
		// no summary will take its dirty mark (a challenge that comes
		// later marks it again).
		n.mu.Lock()
		delete(n.states, l.id)
		n.mu.Unlock()
		return nil, n.st.ClearDirty(ctx, []string{l.id})
	}
	if err := n.keep(ctx, s); err != nil {
		return nil, err
	}
	return s, nil
}

// refoldGroup is refold for several matches, their signatures re-checked
// together when n.recheck is set: a batch equation over a few thousand
// signatures costs several times less per signature than one per match.
func (n *Daemon) refoldGroup(ctx context.Context, ids []string) error {
	n.foldMu.RLock()
	defer n.foldMu.RUnlock()
	return n.refoldGroupLocked(ctx, ids)
}

func (n *Daemon) refoldGroupLocked(ctx context.Context, ids []string) error {
	group := make([]loaded, 0, len(ids))
	var all []*nostr.Event
	for _, id := range ids {
		l, err := n.load(ctx, id)
		if err != nil {
			return fmt.Errorf("match %s: %w", id, err)
		}
		group = append(group, l)
		all = append(all, l.evs...)
	}
	if n.recheck {
		bad := failing(all)
		for i := range group {
			group[i].evs = n.without(group[i], bad)
		}
	}
	for _, l := range group {
		if _, err := n.foldLoaded(ctx, l); err != nil {
			return fmt.Errorf("match %s: %w", l.id, err)
		}
	}
	return nil
}

// failing returns the ids of the events whose id or signature does not
// hold (section 1 drops them, so the fold never sees them).
func failing(evs []*nostr.Event) map[string]bool {
	bad := map[string]bool{}
	for i, ok := range VerifyEvents(evs) {
		if !ok {
			bad[evs[i].ID] = true
		}
	}
	return bad
}

// without returns l's events but the bad ones, counting and logging those.
func (n *Daemon) without(l loaded, bad map[string]bool) []*nostr.Event {
	if len(bad) == 0 {
		return l.evs
	}
	out := make([]*nostr.Event, 0, len(l.evs))
	for _, ev := range l.evs {
		if !bad[ev.ID] {
			out = append(out, ev)
			continue
		}
		n.rejected.Add(1)
		n.log.Warn("stored event fails its check, left out", "match", l.id, "event", ev.ID)
	}
	return out
}

// keep writes a match's summary and makes s its current state.
func (n *Daemon) keep(ctx context.Context, s *match.State) error {
	return n.keepAll(ctx, []*match.State{s})
}

// keepAll writes the summaries of states in one transaction and makes
// them current. A stored summary lists at most lim.SummaryIgnored ignored
// events in full and counts the rest: a match flooded with junk would
// otherwise rewrite hundreds of kilobytes at every event.
func (n *Daemon) keepAll(ctx context.Context, states []*match.State) error {
	if len(states) == 0 {
		return nil
	}
	now := n.clock()
	sums := make([]store.Summary, 0, len(states))
	for _, s := range states {
		sum := s.SummaryCapped(now, n.lim.SummaryIgnored)
		sums = append(sums, store.Summary{
			Match: s.Match, Game: s.Kind, First: s.First, Second: s.Second,
			Status: string(sum.Status), Final: s.Final, UpdatedAt: now, JSON: match.MarshalLine(sum),
			FoldVersion: match.FoldVersion, IdleSince: idleSince(s), Requested: len(s.Requests) > 0,
		})
	}
	if err := n.st.PutSummaries(ctx, sums); err != nil {
		return err
	}
	for _, s := range states {
		// Memory follows the open matches, not the history: a final or
		// expired match needs nothing more from the daemon, and whatever
		// touches it later (a late event, the site) reads it from the
		// store. Parsed events are most of a state's memory and the store
		// has them: live matches are kept lean (they still extend). A
		// dormant game leaves too (dormant.go).
		n.mu.Lock()
		if n.kept(s, now) {
			if s.Events != nil {
				s = s.Lean()
			}
			n.states[s.Match] = s
		} else {
			delete(n.states, s.Match)
		}
		n.mu.Unlock()
		n.siteChanged(s.Match)
		if s.Final {
			n.wakeAnalyst()
		}
	}
	return nil
}

// kept says whether the daemon keeps s in memory at now: a match that is
// neither final nor expired nor dormant, which duties may still act on.
func (n *Daemon) kept(s *match.State, now int64) bool {
	return !s.Final && s.Status(now) != match.StatusExpired && !n.dormant(s, now)
}

// evict lets go of the matches that expired or went dormant since they
// were kept.
func (n *Daemon) evict(now int64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for id, s := range n.states {
		if !n.kept(s, now) {
			delete(n.states, id)
		}
	}
}

// resume folds what a start needs, in proportion to the live matches: the
// matches that are neither final nor dormant, and those whose stored
// events are newer than their summary (a crash between the two). It
// returns how many summaries another version of the fold wrote, for
// upgrade.
func (n *Daemon) resume(ctx context.Context) (r resumed, err error) {
	set, err := n.st.ResumeSet(ctx, match.FoldVersion, n.dormancy(n.clock()))
	if err != nil {
		return r, err
	}
	ids := append(append([]string{}, set.Open...), set.Dirty...)
	sort.Strings(ids)
	ids = slices.Compact(ids)
	r = resumed{folded: len(ids), stale: set.Stale, dormant: set.Dormant}
	return r, n.refoldAll(ctx, ids, nil)
}

// resumed is what a start folded: matches, summaries of another fold
// version (for upgrade) and the dormant matches it left in the store.
type resumed struct{ folded, stale, dormant int }

// upgradeGroup is how many stale matches upgrade folds under one hold of
// the fold lock: the loop waits for at most one group.
const upgradeGroup = 16

// upgrade re-folds, in the background, the summaries another version of
// the fold wrote (the first start after an upgrade), a group at a time
// under the fold lock so that the loop never folds one of them at the
// same time. Matches the loop folds meanwhile are written by the current
// fold anyway.
func (n *Daemon) upgrade(ctx context.Context) error {
	after, done := "", 0
	start := time.Now()
	for {
		ids, err := n.st.StaleSummaries(ctx, match.FoldVersion, after, 256)
		if err != nil || len(ids) == 0 {
			if err == nil {
				n.log.Info("summaries of another fold version re-folded", "matches", done, "took", time.Since(start).Round(time.Millisecond))
			}
			return err
		}
		for i := 0; i < len(ids); i += upgradeGroup {
			group := ids[i:min(i+upgradeGroup, len(ids))]
			n.foldMu.Lock()
			err := n.refoldGroupLocked(ctx, group)
			n.foldMu.Unlock()
			if err != nil {
				return err
			}
			done += len(group)
		}
		after = ids[len(ids)-1]
	}
}

// rebuildGroup is how many matches a rebuild worker folds per job: enough
// events (about a hundred a match) for an efficient batch equation when
// signatures are re-checked, few enough to keep the workers even.
const rebuildGroup = 16

// rebuild re-folds every stored match, reporting progress.
func (n *Daemon) rebuild(ctx context.Context, progress func(done, total int)) (int, error) {
	ids, err := n.st.MatchIDs(ctx)
	if err != nil {
		return 0, err
	}
	return len(ids), n.refoldAll(ctx, ids, progress)
}

// refoldAll re-folds the matches ids on all cores, reporting progress.
func (n *Daemon) refoldAll(ctx context.Context, ids []string, progress func(done, total int)) error {
	jobs := make(chan []string)
	errs := make(chan error, 1)
	var wg sync.WaitGroup
	var done int
	var dmu sync.Mutex
	for w := 0; w < workers(); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for group := range jobs {
				if err := n.refoldGroup(ctx, group); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
				dmu.Lock()
				done += len(group)
				if progress != nil {
					progress(done, len(ids))
				}
				dmu.Unlock()
			}
		}()
	}
	for i := 0; i < len(ids); i += rebuildGroup {
		jobs <- ids[i:min(i+rebuildGroup, len(ids))]
	}
	close(jobs)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
	}
	return nil
}

// snapshot returns the states sorted by match id.
func (n *Daemon) snapshot() []*match.State {
	n.mu.Lock()
	out := make([]*match.State, 0, len(n.states))
	for _, s := range n.states {
		out = append(out, s)
	}
	n.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Match < out[j].Match })
	return out
}

// live returns the states the arbiter may act on: those the daemon keeps
// at now (a finished match needs nothing more from anyone, and a dormant
// one nothing until an event wakes it).
func (n *Daemon) live(now int64) []*match.State {
	var out []*match.State
	for _, s := range n.snapshot() {
		if n.kept(s, now) {
			out = append(out, s)
		}
	}
	return out
}

func (n *Daemon) state(id string) *match.State {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.states[id]
}

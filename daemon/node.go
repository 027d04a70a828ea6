package daemon

import (
	"context"
	"fmt"
	"log/slog"
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

	mu     sync.Mutex
	states map[string]*match.State

	runState
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
		// No valid match: nothing to keep current, nothing to publish.
		n.mu.Lock()
		delete(n.states, l.id)
		n.mu.Unlock()
		return nil, nil
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
		})
	}
	if err := n.st.PutSummaries(ctx, sums); err != nil {
		return err
	}
	for _, s := range states {
		// Parsed events are most of a state's memory and the store has
		// them: keep live matches lean (they still extend) and final ones
		// compact (they need nothing more from the daemon).
		switch {
		case s.Final:
			s = s.Compact()
		case s.Events != nil:
			s = s.Lean()
		}
		n.mu.Lock()
		n.states[s.Match] = s
		n.mu.Unlock()
		n.siteChanged(s.Match)
	}
	return nil
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

// live returns the states the arbiter may act on: not final and not
// expired (a finished match needs nothing more from anyone).
func (n *Daemon) live(now int64) []*match.State {
	var out []*match.State
	for _, s := range n.snapshot() {
		if !s.Final && s.Status(now) != match.StatusExpired {
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

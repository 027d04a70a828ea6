package daemon

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"vesper/match"
	"vesper/site"
	"vesper/store"
)

// The daemon's periodic site build follows what changed. node.keepAll
// marks every match whose state it keeps; a build takes the marks and
// re-renders those matches (folded again from the store, since the daemon
// keeps its states lean or compact), and the listings, player pages,
// ratings, archive and feeds from the cards of the previous build
// (site.Update). The first build of a run has no marks (those made after
// the last build of the previous run died with it): it compares every
// match's stored events with the published build's cards instead
// (siteStale), and is a full build only when there is no build of this
// binary to compare with.
//
// A build runs on a goroutine of its own, off the event loop, at most one
// at a time, and stops at its next store read once ctx is cancelled, so a
// shutdown does not wait for it.

// siteMarks is one node's site build state (node.site).
type siteMarks struct {
	mu      sync.Mutex
	marked  map[string]bool
	running bool
	built   bool // a build of this run has been published
	// idle is closed when no build is running (tests wait on it).
	idle chan struct{}
}

func newSiteMarks() *siteMarks {
	idle := make(chan struct{})
	close(idle)
	return &siteMarks{marked: map[string]bool{}, idle: idle}
}

func siteOf(n *Daemon) *siteMarks { return n.site }

// siteChanged marks a match whose state changed since the site was built.
func (n *Daemon) siteChanged(id string) {
	m := siteOf(n)
	m.mu.Lock()
	m.marked[id] = true
	m.mu.Unlock()
}

// start takes the marks for a new build, or reports false when a build is
// still running (the marks wait for the next one). first says whether the
// build must be a full one.
func (m *siteMarks) start() (ids []string, first, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.running {
		return nil, false, false
	}
	m.running = true
	m.idle = make(chan struct{})
	ids = make([]string, 0, len(m.marked))
	for id := range m.marked {
		ids = append(ids, id)
	}
	clear(m.marked)
	return ids, !m.built, true
}

// finish ends a build; a failed one gives its marks back.
func (m *siteMarks) finish(ids []string, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ok {
		m.built = true
	} else {
		for _, id := range ids {
			m.marked[id] = true
		}
	}
	m.running = false
	close(m.idle)
}

// wait returns a channel closed once no build is running.
func (m *siteMarks) wait() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.idle
}

// buildSiteLogged is the daemon's periodic rebuild: it starts a build in
// the background and returns (see the top of this file).
func (n *Daemon) buildSiteLogged(ctx context.Context, o Options) {
	m := siteOf(n)
	ids, first, ok := m.start()
	if !ok {
		n.log.Info("site build still running, this one skipped")
		return
	}
	now := n.clock()
	go func() {
		start := time.Now()
		stats, full, changed, err := n.buildSite(ctx, o, ids, first, now)
		defer m.finish(ids, err == nil) // after the log line, which tests read
		switch {
		case err != nil && ctx.Err() != nil:
			n.log.Info("site build stopped", "dir", o.SiteDir)
		case err != nil:
			n.log.Error("site build failed", "err", err)
		default:
			n.log.Info("site built", "dir", o.SiteDir, "full", full, "changed", changed, "pages", stats.Pages,
				"written", stats.Written, "unchanged", stats.Unchanged, "took", time.Since(start).Round(time.Millisecond))
			// The records of the games this build shows final carry its
			// PGNs: the same names and ratings.
			if err := n.recordsFromSite(ctx, o, now); err != nil && ctx.Err() == nil {
				n.log.Error("game records", "err", err)
			}
		}
	}()
}

// recordsFromSite records the NIP-64 records still due, with the names
// and ratings of the site just published.
func (n *Daemon) recordsFromSite(ctx context.Context, o Options, now int64) error {
	if n.self == "" {
		return nil
	}
	in, err := siteInput(ctx, n.st, n.self, o.ListAll, now)
	if err != nil {
		return err
	}
	in.Openings = o.Openings // the records' PGNs name openings as the site's do
	exp, err := site.PublishedExporter(in, o.SiteDir)
	if err != nil {
		return err
	}
	_, err = n.records(ctx, func() (*site.Exporter, error) { return exp.Exporter, nil }, exp.Final)
	return err
}

// siteShow is what this daemon's site builds show besides the store.
func (n *Daemon) siteShow(o Options, now int64) siteShow {
	return siteShow{listAll: o.ListAll, analysing: n.analyst != nil, dormantAfter: n.lim.DormantAfter,
		strength: houseStrength(n.think), house: n.housePlan(now), openings: o.Openings,
		relays: n.relays, source: o.SourceURL}
}

// buildSite builds the site from the matches ids that changed since the
// previous build of this run, or in full (first, and the site has no
// previous build to start from). full reports which it did, changed how
// many matches were folded for an update.
func (n *Daemon) buildSite(ctx context.Context, o Options, ids []string, first bool, now int64) (stats site.Stats, full bool, changed int, err error) {
	if first {
		// The marks of the previous run are gone, but the store says which
		// matches differ from the published build.
		stale, err := siteStale(ctx, n.st, o.SiteDir)
		switch {
		case err == nil:
			ids, first = append(ids, stale...), false
			slices.Sort(ids)
			ids = slices.Compact(ids)
		case !errors.Is(err, site.ErrNoPrevious):
			return site.Stats{}, false, 0, err
		}
	}
	if !first {
		stats, err = siteUpdate(ctx, n.st, o.SiteDir, n.self, n.siteShow(o, now), now, ids)
		if !errors.Is(err, site.ErrNoPrevious) {
			return stats, false, len(ids), err
		}
	}
	stats, err = buildFull(ctx, n.st, o.SiteDir, n.self, n.siteShow(o, now), now)
	return stats, true, 0, err
}

// siteUpdate updates the site at out: the matches ids are folded again
// from the store, every other one is carried over from the previous build
// (site.Update); the output equals siteFromStore's.
func siteUpdate(ctx context.Context, st *store.Store, out, daemon string, sh siteShow, now int64, ids []string) (site.Stats, error) {
	in, err := siteInput(ctx, st, daemon, sh.listAll, now)
	if err != nil {
		return site.Stats{}, err
	}
	sh.apply(&in)
	load := func(id string) (*match.State, map[string]int64, error) {
		return foldOne(ctx, st, id)
	}
	return site.Update(in, ids, load, out)
}

// siteStale returns the matches whose stored events (ids and seen_at) are
// not those the site at out was built from, with the matches it has that
// the store lacks: one scan of the store's index, no event read or folded.
func siteStale(ctx context.Context, st *store.Store, out string) ([]string, error) {
	ids, err := st.MatchIDs(ctx) // the matches siteFromStore folds
	if err != nil {
		return nil, err
	}
	digests := make(map[string]string, len(ids))
	for _, id := range ids {
		digests[id] = ""
	}
	cur := ""
	var stamps []site.Stamp
	flush := func() {
		if _, ok := digests[cur]; ok {
			digests[cur] = site.EventsDigest(stamps)
		}
		stamps = stamps[:0]
	}
	err = st.MatchStamps(ctx, func(m, id string, seenAt int64) error {
		if m != cur {
			flush()
			cur = m
		}
		stamps = append(stamps, site.Stamp{ID: id, SeenAt: seenAt})
		return nil
	})
	if err != nil {
		return nil, err
	}
	flush()
	return site.Stale(out, digests)
}

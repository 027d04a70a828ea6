package daemon

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"vesper/match"
	"vesper/nostr/relay"
	"vesper/nostr/relay/reconcile"
	"vesper/store"
)

// syncMargin widens the challenge window of the fallback for clock skew
// between this machine and the relays' stamps.
const syncMargin = 3600

// syncWindow is about how many stored events one NIP-77 window holds.
const syncWindow = 50_000

// syncOptions are the store's side of relay.Sync. full scans every
// challenge on the fallback relays; otherwise each relay is scanned in
// full when it never was, or not for fullEvery, and from its last
// completed sync minus the challenge expiry (match.ChallengeExpiry)
// otherwise: a challenge older than that at the last sync, and not seen
// then, is either expired or a match whose accept and moves name it,
// which the fallback follows anyway.
func (n *Daemon) syncOptions(ctx context.Context, fullEvery time.Duration, full bool) reconcile.Options {
	now := n.clock()
	return reconcile.Options{
		// The players' write relays too (NIP-65): a sync after downtime
		// finds there what only they hold.
		Relays: append(slices.Clone(n.relays), n.lists.followed()...),
		// Named by strangers: a much smaller NIP-77 budget (issue 30).
		Strangers: n.lists.followed(),
		// Dialed through internal/netguard unless the operator allowed
		// private addresses (--allow-private-relays).
		AllowPrivate: n.allowPrivate,
		Local: func(ctx context.Context, kinds []int) ([]reconcile.Item, error) {
			stamps, err := n.st.Stamps(ctx, kinds)
			if err != nil {
				return nil, err
			}
			out := make([]reconcile.Item, len(stamps))
			for i, s := range stamps {
				out[i] = reconcile.Item{ID: s.ID, CreatedAt: s.CreatedAt}
			}
			return out, nil
		},
		// NIP-77 window by window: a reconciliation holds one window's
		// ids, not the history's (9.3 million at 100,000 matches).
		Windows: func(ctx context.Context, kinds []int) ([]reconcile.Window, error) {
			ws, err := n.st.StampWindows(ctx, kinds, syncWindow)
			out := make([]reconcile.Window, len(ws))
			for i, w := range ws {
				out[i] = reconcile.Window{Since: w.Since, Until: w.Until}
			}
			return out, err
		},
		LocalIn: func(ctx context.Context, kinds []int, w reconcile.Window) ([]reconcile.Item, error) {
			stamps, err := n.st.StampsIn(ctx, kinds, store.StampWindow{Since: w.Since, Until: w.Until})
			out := make([]reconcile.Item, len(stamps))
			for i, s := range stamps {
				out[i] = reconcile.Item{ID: s.ID, CreatedAt: s.CreatedAt}
			}
			return out, err
		},
		Open: func(ctx context.Context) ([]string, error) {
			if full {
				return n.st.OpenMatches(ctx)
			}
			return n.syncMatches(ctx, now)
		},
		// The dormant matches' new events, by time rather than by name.
		MatchesSince: func(url string) int64 {
			if full {
				return 0 // every open match is asked about by name
			}
			last, err := n.st.SyncMark(ctx, url, store.SyncMarkDone)
			if err != nil || last == 0 {
				return 0
			}
			return max(1, last-syncMargin)
		},
		Known: n.st.KnownIDs,
		ChallengesSince: func(url string) int64 {
			if full {
				return 0
			}
			last, err := n.st.SyncMark(ctx, url, store.SyncMarkDone)
			if err != nil || last == 0 {
				return 0
			}
			scanned, err := n.st.SyncMark(ctx, url, store.SyncMarkFullScan)
			if err != nil || now-scanned >= int64(fullEvery/time.Second) {
				return 0
			}
			return max(1, last-match.ChallengeExpiry-syncMargin)
		},
		Key:    n.key,
		Logger: n.log,
	}
}

// dormantPerSync is how many of the matches a sync does not ask about
// by name (dormant games, expired challenges) it asks about anyway, in
// turn: the fallback's cost per sync stays that of the live matches plus
// this, however many games were abandoned (issue 38), and a relay's
// backdated event of one of them is still found within a rotation.
const dormantPerSync = 1000

// syncMatches are the matches a sync's fallback asks every relay about
// by name: the live ones (store.LiveMatches) and the next dormantPerSync
// of the others, from where the previous sync left off. A new event of a
// dormant match comes through Options.MatchesSince instead.
func (n *Daemon) syncMatches(ctx context.Context, now int64) ([]string, error) {
	d := n.dormancy(now)
	live, err := n.st.LiveMatches(ctx, d)
	if err != nil {
		return nil, err
	}
	n.rotMu.Lock()
	defer n.rotMu.Unlock()
	turn, err := n.st.SettledOpen(ctx, d, n.rotAfter, dormantPerSync)
	if err != nil {
		return nil, err
	}
	n.rotAfter = ""
	if len(turn) == dormantPerSync {
		n.rotAfter = turn[len(turn)-1]
	}
	return append(live, turn...), nil
}

// syncRun is one sync's outcome, with the marks to record once its events
// are stored.
type syncRun struct {
	stats []reconcile.Stats
	start int64
	full  map[string]bool // fallback relays whose challenges were scanned in full
	// partial: only some matches were asked about (FallbackOnly), so the
	// run moves no mark.
	partial bool
	err     error
}

// sync runs relay.Sync, logging each relay's line and counting the
// outcome in met (nil: not counted).
func (n *Daemon) sync(ctx context.Context, opts reconcile.Options, out chan<- relay.Received, met *syncMetrics) syncRun {
	r := syncRun{start: n.clock(), full: map[string]bool{}, partial: opts.FallbackOnly}
	// Counted apart from vesper_events_rejected_total: a sync fetches again
	// what the live client already refused (a forged id a relay keeps
	// listing), and each refusal of the same event would count again.
	opts.OnReject = met.refused
	var mu sync.Mutex
	if since := opts.ChallengesSince; since != nil {
		opts.ChallengesSince = func(u string) int64 {
			v := since(u)
			if v == 0 {
				mu.Lock()
				r.full[u] = true
				mu.Unlock()
			}
			return v
		}
	}
	r.stats, r.err = reconcile.Sync(ctx, opts, out)
	for _, st := range r.stats {
		met.observe(st)
		args := []any{"relay", st.Relay, "method", st.Method, "compared", st.Compared, "fetched", st.Fetched,
			"refused", st.Refused, "seconds", st.Elapsed.Seconds()}
		if st.Missing > 0 {
			args = append(args, "missing", st.Missing)
		}
		if st.Splits > 0 || st.Paged > 0 {
			// The relay cut its NIP-77 set: how many windows it took.
			args = append(args, "nip77_splits", st.Splits, "nip77_paged", st.Paged)
		}
		if st.NegError != "" && st.Method == "fallback" {
			args = append(args, "nip77", st.NegError)
		}
		if st.Error != "" {
			n.log.Warn("sync failed", append(args, "err", st.Error)...)
		} else {
			n.log.Info("synced", args...)
		}
	}
	return r
}

// markSynced records, for each relay that completed, the sync of r (and
// its full scan: NIP-77 compares everything, so it counts as one). Call it
// once the events the sync sent are stored: the next sync's challenge
// window starts from it.
func (n *Daemon) markSynced(ctx context.Context, r syncRun) error {
	if r.partial {
		return nil
	}
	for _, st := range r.stats {
		if st.Error != "" {
			continue
		}
		if err := n.st.SetSyncMark(ctx, st.Relay, store.SyncMarkDone, r.start); err != nil {
			return err
		}
		if r.full[st.Relay] || st.Method == "nip77" {
			if err := n.st.SetSyncMark(ctx, st.Relay, store.SyncMarkFullScan, r.start); err != nil {
				return err
			}
		}
	}
	return nil
}

// syncMetrics are the sync's Prometheus series; nil records nothing.
type syncMetrics struct {
	runs    *prometheus.CounterVec
	fetched *prometheus.CounterVec
	missing *prometheus.CounterVec
	refuse  *prometheus.CounterVec
	trusted *prometheus.GaugeVec
}

func newSyncMetrics(m *metrics) *syncMetrics {
	if m == nil {
		return nil
	}
	s := &syncMetrics{
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vesper_sync_total",
			Help: "Relay syncs, by relay, method (nip77 or fallback) and outcome (ok, failed; nip77_failed when NIP-77 was tried and refused or broke)."}, []string{"relay", "method", "outcome"}),
		fetched: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vesper_sync_fetched_total",
			Help: "New events a sync fetched, by relay."}, []string{"relay"}),
		missing: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vesper_sync_missing_total",
			Help: "Ids a relay listed in NIP-77 and then did not send (or sent and were refused), by relay."}, []string{"relay"}),
		refuse: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vesper_sync_refused_total",
			Help: "Events a relay sent to a sync that failed the checks, by relay and reason."}, []string{"relay", "reason"}),
		trusted: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "vesper_sync_nip77_trusted",
			Help: "1 when the relay's NIP-77 view held every event its REQs read at the last sync's check, 0 when it did not and the relay was paged instead, by relay."}, []string{"relay"}),
	}
	m.reg.MustRegister(s.runs, s.fetched, s.missing, s.refuse, s.trusted)
	return s
}

func (s *syncMetrics) refused(relay, reason string) {
	if s != nil {
		s.refuse.WithLabelValues(relay, reason).Inc()
	}
}

func (s *syncMetrics) observe(st reconcile.Stats) {
	if s == nil {
		return
	}
	outcome := "ok"
	if st.Error != "" {
		outcome = "failed"
	}
	s.runs.WithLabelValues(st.Relay, st.Method, outcome).Inc()
	if st.NegError != "" && st.Method == "fallback" {
		s.runs.WithLabelValues(st.Relay, "nip77", "nip77_failed").Inc()
	}
	switch {
	case st.Untrusted:
		s.trusted.WithLabelValues(st.Relay).Set(0)
	case st.Check != "" && st.Method == "nip77":
		s.trusted.WithLabelValues(st.Relay).Set(1)
	}
	s.fetched.WithLabelValues(st.Relay).Add(float64(st.Fetched))
	s.missing.WithLabelValues(st.Relay).Add(float64(st.Missing))
}

// SyncRequest is one `vesper sync`.
type SyncRequest struct {
	Full         bool // scan every challenge on relays without NIP-77
	NoNIP77      bool
	RelayTimeout time.Duration
	Progress     func(reconcile.Progress)
}

// SyncReport is `vesper sync --json`.
type SyncReport struct {
	Relays  []reconcile.Stats `json:"relays"`
	Stored  int               `json:"stored"`  // new events stored
	Matches int               `json:"matches"` // matches re-folded
	Seconds float64           `json:"seconds"`
}

// SyncOnce reconciles the store with every relay once, stores what it
// fetched and re-folds the matches that touched. A relay that failed is
// in the report with its error; the error is for the store.
func (n *Daemon) SyncOnce(ctx context.Context, req SyncRequest) (SyncReport, error) {
	start := time.Now()
	if err := n.st.PrepareSync(ctx); err != nil {
		return SyncReport{}, err
	}
	opts := n.syncOptions(ctx, 24*time.Hour, req.Full)
	opts.NoNIP77 = req.NoNIP77
	opts.RelayTimeout = req.RelayTimeout
	opts.Progress = req.Progress
	recv := make(chan relay.Received, 256)
	sink := &syncSink{n: n, touched: map[string]bool{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sink.drain(ctx, recv)
	}()
	run := n.sync(ctx, opts, recv, nil)
	close(recv)
	<-done
	err := run.err
	if err == nil {
		err = sink.err
	}
	if err == nil {
		err = n.markSynced(ctx, run)
	}
	if err != nil {
		return SyncReport{Relays: run.stats}, err
	}
	ids := make([]string, 0, len(sink.touched))
	for id := range sink.touched {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	if err := n.refoldAll(ctx, ids, nil); err != nil {
		return SyncReport{Relays: run.stats}, fmt.Errorf("fold: %w", err)
	}
	return SyncReport{Relays: run.stats, Stored: sink.stored, Matches: len(ids), Seconds: time.Since(start).Seconds()}, nil
}

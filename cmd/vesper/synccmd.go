package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"vesper/nostr/relay"
	"vesper/store"
)

// expiry is the 7 days after which an unaccepted challenge expires
// (PROTOCOL.md section 2): a challenge older than that at the last sync,
// and not seen then, is either expired or a match whose accept and moves
// name it, which the fallback follows anyway.
const expiry = 7 * 86400

// syncMargin widens the challenge window of the fallback for clock skew
// between this machine and the relays' stamps.
const syncMargin = 3600

func syncCommand() *cli.Command {
	return &cli.Command{
		Name:      "sync",
		Usage:     "bring the store up to date with the relays once (NIP-77 where offered), then exit",
		ArgsUsage: " ",
		Description: "Reconciles DIR/vesper.db with every relay whatever the created_at of what it\n" +
			"lacks: with NIP-77 (negentropy) where a relay offers it, the store's ids against\n" +
			"the relay's for the game kinds, fetching exactly the missing events; otherwise\n" +
			"every event of each match that is not final, the challenges of the last 7 days\n" +
			"and the downtime (all of them with --full or on a first sync), and the matches\n" +
			"these reveal. Every event is checked as the daemon checks it and stored with the\n" +
			"time it was received; the matches it touched are re-folded. Builds a store from\n" +
			"scratch when DIR has none. Prints one line per relay (compared, fetched,\n" +
			"refused); --json prints one object.",
		Flags: []cli.Flag{
			relaysFlag(), dataFlag(), keyFlag(), jsonFlag(),
			&cli.BoolFlag{Name: "full", Usage: "scan every challenge on relays without NIP-77, not only recent ones"},
			&cli.BoolFlag{Name: "no-nip77", Usage: "do not use NIP-77, only the fallback"},
			&cli.DurationFlag{Name: "relay-timeout", Value: 10 * time.Minute, Usage: "bound on the work with one relay"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return fail(exitUsage, "sync takes no arguments (got %q)", c.Args().First())
			}
			n, closeFn, err := openNode(c)
			if err != nil {
				return err
			}
			defer closeFn()
			n.log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
			return n.syncOnce(c.Context, os.Stdout, syncFlags{
				json: c.Bool("json"), full: c.Bool("full"), noNIP77: c.Bool("no-nip77"), relayTimeout: c.Duration("relay-timeout"),
			})
		},
	}
}

type syncFlags struct {
	json, full, noNIP77 bool
	relayTimeout        time.Duration
}

// syncReport is `vesper sync --json`.
type syncReport struct {
	Relays  []relay.SyncStats `json:"relays"`
	Stored  int               `json:"stored"`  // new events stored
	Matches int               `json:"matches"` // matches re-folded
	Seconds float64           `json:"seconds"`
}

func (n *node) syncOnce(ctx context.Context, w io.Writer, f syncFlags) error {
	start := time.Now()
	if err := n.st.PrepareSync(ctx); err != nil {
		return fail(exitFailure, "sync: %v", err)
	}
	opts := n.syncOptions(ctx, 24*time.Hour, f.full)
	opts.NoNIP77 = f.noNIP77
	opts.RelayTimeout = f.relayTimeout
	var bar *progressbar.ProgressBar
	if term.IsTerminal(int(os.Stderr.Fd())) && !f.json {
		bar = progressbar.NewOptions(-1, progressbar.OptionSetWriter(os.Stderr),
			progressbar.OptionSetDescription("syncing"), progressbar.OptionShowCount(),
			progressbar.OptionSpinnerType(14))
		var mu sync.Mutex
		fetched := map[string]int{}
		opts.Progress = func(p relay.SyncProgress) {
			mu.Lock()
			defer mu.Unlock()
			fetched[p.Relay] = p.Fetched
			total := 0
			for _, v := range fetched {
				total += v
			}
			bar.Describe(fmt.Sprintf("%s: %s", p.Relay, p.Phase))
			_ = bar.Set(total)
		}
	}
	recv := make(chan relay.Received, 256)
	touched := map[string]bool{}
	stored := 0
	var putErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		batch := make([]relay.Received, 0, 500)
		flush := func() {
			if len(batch) == 0 || putErr != nil {
				batch = batch[:0]
				return
			}
			fresh, err := n.put(ctx, batch, n.clock())
			if err != nil {
				putErr = err
			}
			stored += len(fresh)
			for _, ev := range fresh {
				for _, m := range store.MatchesOf(ev) {
					touched[m] = true
				}
			}
			batch = batch[:0]
		}
		for r := range recv {
			batch = append(batch, r)
			if len(batch) == cap(batch) || len(recv) == 0 {
				flush()
			}
		}
		flush()
	}()
	run := n.sync(ctx, opts, recv, nil)
	stats, err := run.stats, run.err
	close(recv)
	<-done
	if bar != nil {
		_ = bar.Finish()
		fmt.Fprintln(os.Stderr)
	}
	if err == nil {
		err = putErr
	}
	if err != nil {
		return fail(exitFailure, "sync: %v", err)
	}
	if err := n.markSynced(ctx, run); err != nil {
		return fail(exitFailure, "sync: %v", err)
	}
	ids := make([]string, 0, len(touched))
	for id := range touched {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	if err := n.refoldAll(ctx, ids, nil); err != nil {
		return fail(exitFailure, "sync: fold: %v", err)
	}
	rep := syncReport{Relays: stats, Stored: stored, Matches: len(ids), Seconds: time.Since(start).Seconds()}
	failed := 0
	for _, st := range stats {
		if st.Error != "" {
			failed++
		}
	}
	if f.json {
		raw, _ := json.Marshal(rep)
		fmt.Fprintln(w, string(raw))
	} else {
		for _, st := range stats {
			fmt.Fprintln(w, syncLine(st))
		}
		fmt.Fprintf(w, "stored %d new events, re-folded %d matches in %.1f s\n", rep.Stored, rep.Matches, rep.Seconds)
	}
	if failed == len(stats) {
		return fail(exitRelays, "sync: no relay could be synced")
	}
	return nil
}

// syncLine is the summary of one relay: how, compared, fetched, refused.
func syncLine(st relay.SyncStats) string {
	s := fmt.Sprintf("%s: %s, compared %d, fetched %d, refused %d", st.Relay, st.Method, st.Compared, st.Fetched, st.Refused)
	if st.Missing > 0 {
		s += fmt.Sprintf(", %d listed but not sent", st.Missing)
	}
	if st.NegError != "" && st.Method == "fallback" {
		s += " (NIP-77: " + st.NegError + ")"
	}
	if st.Error != "" {
		s += ", error: " + st.Error
	}
	return s
}

// syncOptions are the store's side of relay.Sync. full scans every
// challenge on the fallback relays; otherwise each relay is scanned in
// full when it never was, or not for fullEvery, and from its last
// completed sync minus the 7-day expiry otherwise.
func (n *node) syncOptions(ctx context.Context, fullEvery time.Duration, full bool) relay.SyncOptions {
	now := n.clock()
	return relay.SyncOptions{
		Relays: n.relays,
		Local: func(ctx context.Context, kinds []int) ([]relay.SyncItem, error) {
			stamps, err := n.st.Stamps(ctx, kinds)
			if err != nil {
				return nil, err
			}
			out := make([]relay.SyncItem, len(stamps))
			for i, s := range stamps {
				out[i] = relay.SyncItem{ID: s.ID, CreatedAt: s.CreatedAt}
			}
			return out, nil
		},
		Open:  n.st.OpenMatches,
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
			return max(1, last-expiry-syncMargin)
		},
		Key:    n.key,
		Logger: n.log,
	}
}

// syncRun is one sync's outcome, with the marks to record once its events
// are stored.
type syncRun struct {
	stats []relay.SyncStats
	start int64
	full  map[string]bool // fallback relays whose challenges were scanned in full
	// partial: only some matches were asked about (FallbackOnly), so the
	// run moves no mark.
	partial bool
	err     error
}

// sync runs relay.Sync, logging each relay's line and counting the
// outcome in met (nil: not counted).
func (n *node) sync(ctx context.Context, opts relay.SyncOptions, out chan<- relay.Received, met *syncMetrics) syncRun {
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
	r.stats, r.err = relay.Sync(ctx, opts, out)
	for _, st := range r.stats {
		met.observe(st)
		args := []any{"relay", st.Relay, "method", st.Method, "compared", st.Compared, "fetched", st.Fetched,
			"refused", st.Refused, "seconds", st.Elapsed.Seconds()}
		if st.Missing > 0 {
			args = append(args, "missing", st.Missing)
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
func (n *node) markSynced(ctx context.Context, r syncRun) error {
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
	}
	m.reg.MustRegister(s.runs, s.fetched, s.missing, s.refuse)
	return s
}

func (s *syncMetrics) refused(relay, reason string) {
	if s != nil {
		s.refuse.WithLabelValues(relay, reason).Inc()
	}
}

func (s *syncMetrics) observe(st relay.SyncStats) {
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
	s.fetched.WithLabelValues(st.Relay).Add(float64(st.Fetched))
	s.missing.WithLabelValues(st.Relay).Add(float64(st.Missing))
}

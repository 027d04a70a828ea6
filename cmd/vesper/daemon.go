package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"vesper/arbiter"
	"vesper/match"
	"vesper/nostr/relay"
	"vesper/store"
)

func daemonCommand() *cli.Command {
	return &cli.Command{
		Name:  "daemon",
		Usage: "follow the relays, keep every match's state, publish the daemon's duties, build the site",
		Description: "Subscribes to every relay for game events (kinds 4420-4426) and the players'\n" +
			"profiles, stores each event once in DIR/vesper.db with the time it was first seen,\n" +
			"re-folds each match an event touches, and writes its summary. With a key it also\n" +
			"signs its own games' results, claims timeouts, rules as fallback arbiter and plays\n" +
			"open challenges nobody took (PROTOCOL.md section 3). Without a key it only verifies.\n" +
			"SIGINT or SIGTERM stops it cleanly; a restart resumes from the per-relay cursors.",
		Flags: append(daemonFlags(),
			&cli.StringFlag{Name: "metrics", Usage: "serve Prometheus metrics on ADDR (e.g. 127.0.0.1:9464)"},
		),
		Action: func(c *cli.Context) error {
			ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
			defer stop()
			n, closeFn, err := openNode(c)
			if err != nil {
				return err
			}
			defer closeFn()
			return n.runDaemon(ctx, daemonOptions(c))
		},
	}
}

func daemonFlags() []cli.Flag {
	return []cli.Flag{
		relaysFlag(), dataFlag(), keyFlag(),
		&cli.IntFlag{Name: "max-games", Value: 5, Usage: "games the daemon plays at once"},
		&cli.DurationFlag{Name: "think", Value: 2 * time.Second, Usage: "engine time per move"},
		&cli.BoolFlag{Name: "no-play", Usage: "do not accept challenges or play"},
		&cli.BoolFlag{Name: "no-arbiter", Usage: "do not publish fallback rulings"},
		&cli.DurationFlag{Name: "tick", Value: time.Minute, Usage: "how often duties are re-checked without new events"},
		&cli.StringFlag{Name: "site-dir", Usage: "build the static site into DIR"},
		&cli.DurationFlag{Name: "site-every", Value: 15 * time.Minute, Usage: "site rebuild interval"},
		&cli.BoolFlag{Name: "list-all", Usage: "list every account on the site, not only bots (kind 0 \"bot\": true)"},
	}
}

type runOptions struct {
	tick      time.Duration
	siteDir   string
	siteEvery time.Duration
	listAll   bool
	metrics   string
}

func daemonOptions(c *cli.Context) runOptions {
	return runOptions{tick: c.Duration("tick"), siteDir: c.String("site-dir"),
		siteEvery: c.Duration("site-every"), listAll: c.Bool("list-all"), metrics: c.String("metrics")}
}

// openNode opens the store and builds the node from the common flags.
func openNode(c *cli.Context) (*node, func(), error) {
	key, err := loadKey(c, false)
	if err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(c.String("data"), 0o755); err != nil {
		return nil, nil, fail(exitFailure, "cannot create data directory: %v", unwrapPath(err))
	}
	st, err := store.Open(dbPath(c))
	if err != nil {
		return nil, nil, fail(exitFailure, "cannot open store %s: %v", dbPath(c), err)
	}
	cfg := arbiter.DefaultConfig()
	cfg.MaxGames = c.Int("max-games")
	cfg.Play = !c.Bool("no-play")
	cfg.Arbitrate = !c.Bool("no-arbiter")
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	n := newNode(st, key, relayList(c), cfg, log)
	if d := c.Duration("think"); d > 0 {
		n.think = d
	}
	return n, func() { _ = st.Close() }, nil
}

// runDaemon is the daemon loop: ingest, fold, decide, publish, build.
func (n *node) runDaemon(ctx context.Context, o runOptions) error {
	client := relay.New(relay.Config{Relays: n.relays, Cursors: n.st, MarkCursors: true, Key: n.key, Logger: n.log,
		OnReject: func(_, reason string) { n.met.rejected(reason) }})
	if o.metrics != "" {
		n.met = newMetrics(client.Connected)
		ln, err := n.met.serve(o.metrics)
		if err != nil {
			return fail(exitUsage, "--metrics %s: %v", o.metrics, err)
		}
		defer ln.Close()
	}
	// The rebuild parses every stored event once and keeps almost none of
	// them: collect more often while it runs, so that its garbage does not
	// set the process's high-water mark, and hand the rest back after.
	gc := debug.SetGCPercent(50)
	count, err := n.rebuild(ctx, nil)
	debug.SetGCPercent(gc)
	if err != nil {
		return fail(exitFailure, "rebuild: %v", err)
	}
	debug.FreeOSMemory()
	n.log.Info("daemon started", "matches", count, "relays", len(n.relays), "pubkey", n.self)
	client.WatchAuthors(players(n.snapshot())...)

	recv := make(chan relay.Received, 1024)
	go func() {
		if err := client.Run(ctx, recv); err != nil && ctx.Err() == nil {
			n.log.Error("relay client stopped", "err", err)
		}
	}()
	if err := n.profileDuty(ctx); err != nil {
		return fail(exitFailure, "outbox: %v", err)
	}
	kick := make(chan struct{}, 1)
	go n.publisher(ctx, kick)
	poke := func() {
		select {
		case kick <- struct{}{}:
		default:
		}
	}
	tick := time.NewTicker(o.tick)
	defer tick.Stop()
	var siteC <-chan time.Time
	if o.siteDir != "" {
		n.buildSiteLogged(ctx, o)
		st := time.NewTicker(o.siteEvery)
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
	lastEvent := time.Now()
	ready, backfilled := client.Ready(), false
	unfolded := map[string]bool{} // matches stored during the first backfill, not yet folded
	for {
		select {
		case <-ctx.Done():
			n.log.Info("daemon stopping")
			return nil
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
			for _, r := range batch {
				if r.Event == nil {
					marks = append(marks, r)
				} else {
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
					if err = n.st.SetCursor(ctx, m.Relay, m.Cursor); err != nil {
						break
					}
				}
			}
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return fail(exitFailure, "store: %v", err)
			}
			client.WatchAuthors(fresh...)
			lastEvent = time.Now()
			quiet.Reset(time.Second)
		case <-ready:
			ready, backfilled = nil, true
			players, err := n.foldBackfill(ctx, unfolded)
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return fail(exitFailure, "store: %v", err)
			}
			client.WatchAuthors(players...)
			n.log.Info("relays backfilled", "matches_folded", len(unfolded))
			unfolded = nil
			quiet.Reset(time.Second)
		case <-quiet.C:
			if backfilled {
				n.duties(ctx, poke)
			}
		case <-tick.C:
			if backfilled && time.Since(lastEvent) >= time.Second {
				n.duties(ctx, poke)
			}
			n.met.statuses(n.statusCounts())
		case <-siteC:
			n.buildSiteLogged(ctx, o)
		}
	}
}

// stash stores a batch without folding it, adding the matches it touched
// to unfolded (for foldBackfill).
func (n *node) stash(ctx context.Context, batch []relay.Received, unfolded map[string]bool) error {
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
func (n *node) foldBackfill(ctx context.Context, unfolded map[string]bool) ([]string, error) {
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

// players are the pubkeys playing in states (whose profiles the daemon
// follows).
func players(states []*match.State) []string {
	var out []string
	for _, s := range states {
		out = append(out, s.First)
		if s.Accepted {
			out = append(out, s.Second)
		}
	}
	return out
}

func (n *node) duties(ctx context.Context, poke func()) {
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
func (n *node) publisher(ctx context.Context, kick <-chan struct{}) {
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
		res, err := n.publishPending(ctx, 10*time.Second)
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

func (n *node) statusCounts() map[string]int {
	now := n.clock()
	out := map[string]int{}
	for _, s := range n.snapshot() {
		out[string(s.Status(now))]++
	}
	return out
}

package main

import (
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"vesper/analysis"
	"vesper/arbiter"
	"vesper/daemon"
	"vesper/nostr/relay"
	"vesper/store"
)

func daemonCommand() *cli.Command {
	return &cli.Command{
		Name:  "daemon",
		Usage: "follow the relays, keep every match's state, publish the daemon's duties, build the site",
		Description: "Subscribes to every relay for game events (kinds 4420-4426, and 4427 reveals of\n" +
			"committed reasoning, which the site checks and the fold never reads) and the players'\n" +
			"profiles, stores each event once in DIR/vesper.db with the time it was first seen,\n" +
			"re-folds each match an event touches, and writes its summary. With a key it also\n" +
			"signs its own games' results, claims timeouts, rules as fallback arbiter and plays\n" +
			"open challenges nobody took (PROTOCOL.md section 3). Without a key it only verifies.\n" +
			"SIGINT or SIGTERM stops it cleanly; a restart resumes from the per-relay cursors\n" +
			"and reconciles with every relay (as `vesper sync`) before it takes any duty, then\n" +
			"again after each reconnect and every --sync-every, so that no event is lost\n" +
			"whatever its created_at.",
		Flags: append(daemonFlags(),
			&cli.StringFlag{Name: "metrics", Usage: "serve Prometheus metrics on ADDR (e.g. 127.0.0.1:9464)"},
			&cli.DurationFlag{Name: "sync-every", Value: time.Hour, Usage: "how often to reconcile with every relay (anti-entropy), besides at start and after reconnects"},
			&cli.DurationFlag{Name: "full-scan-every", Value: 24 * time.Hour, Usage: "how often relays without NIP-77 get a full scan of challenges (not only recent ones)"},
			&cli.BoolFlag{Name: "no-nip77", Usage: "do not use NIP-77 when syncing, only the fallback"},
			&cli.DurationFlag{Name: "first-sync-wait", Value: 90 * time.Second, Usage: "longest wait for the start's sync before duties begin (it then goes on in the background)"},
			&cli.DurationFlag{Name: "reconnect-sync-gap", Value: time.Minute, Usage: "least time between two syncs of a relay that its reconnects trigger"},
			&cli.IntFlag{Name: "max-relays", Value: relay.DefaultMaxRelays, Usage: "most relays followed at once: the --relays ones and the players' write relays from their NIP-65 lists"},
			&cli.StringFlag{Name: "analyse", Value: "auto", Usage: "grade finished games in the background: stockfish, builtin, off, or auto (Stockfish when found, else off)"},
			&cli.StringFlag{Name: "stockfish", Usage: "path of the Stockfish (any UCI engine) the analysis runs"},
			&cli.IntFlag{Name: "analysis-depth", Usage: fmt.Sprintf("search depth per position (default %d for Stockfish)", analysis.DefaultDepth)},
			&cli.Int64Flag{Name: "analysis-nodes", Usage: fmt.Sprintf("node budget per position (default %d for the built-in engine)", analysis.DefaultBuiltinNodes)},
			solverNodesFlag("analysis-solver-nodes"),
			&cli.IntFlag{Name: "analysis-nice", Value: 10, Usage: "niceness added to the Stockfish process, 0-19 (Linux)"},
			&cli.Float64Flag{Name: "analysis-share", Value: 0.5, Usage: "most of one core the analysis takes (it rests between games to stay under it)"},
			openingsFlag(),
		),
		Action: func(c *cli.Context) error {
			ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
			defer stop()
			opts := daemonOptions(c)
			var err error
			if opts.Openings, err = loadOpenings(c); err != nil {
				return err
			}
			an, err := daemonAnalysis(c)
			if err != nil {
				return err
			}
			d, _, closeFn, err := openDaemonWith(c, opts, false, slog.New(slog.NewTextHandler(os.Stderr, nil)), an)
			if err != nil {
				return err
			}
			defer closeFn()
			if err := d.Run(ctx); err != nil {
				return fail(exitFailure, "%v", err)
			}
			return nil
		},
	}
}

func daemonFlags() []cli.Flag {
	return append([]cli.Flag{
		relaysFlag(), dataFlag(), keyFlag(),
		&cli.IntFlag{Name: "max-games", Value: 5, Usage: "games the daemon plays at once"},
		&cli.DurationFlag{Name: "think", Value: 2 * time.Second, Usage: "engine time per move"},
		&cli.BoolFlag{Name: "no-play", Usage: "do not accept challenges or play"},
		&cli.BoolFlag{Name: "no-arbiter", Usage: "do not publish fallback rulings"},
		&cli.DurationFlag{Name: "tick", Value: time.Minute, Usage: "how often duties are re-checked without new events"},
		&cli.StringFlag{Name: "site-dir", Usage: "build the static site into DIR"},
		&cli.DurationFlag{Name: "site-every", Value: 15 * time.Minute, Usage: "site rebuild interval"},
		&cli.BoolFlag{Name: "list-all", Usage: "list every account on the site, not only bots (kind 0 \"bot\": true)"},
		sourceURLFlag(),
	}, limitFlags()...)
}

func daemonOptions(c *cli.Context) daemon.Options {
	return daemon.Options{Tick: c.Duration("tick"), SiteDir: c.String("site-dir"),
		SiteEvery: c.Duration("site-every"), ListAll: c.Bool("list-all"), Metrics: c.String("metrics"), SourceURL: c.String("source-url"),
		SyncEvery: c.Duration("sync-every"), FullScanEvery: c.Duration("full-scan-every"), NoNIP77: c.Bool("no-nip77"),
		FirstSyncWait: c.Duration("first-sync-wait"), ReconnectGap: c.Duration("reconnect-sync-gap")}
}

// openDaemon opens the store and builds the daemon from the common flags;
// close stops the daemon and then closes the store.
func openDaemon(c *cli.Context, run daemon.Options, recheck bool) (d *daemon.Daemon, st *store.Store, closeFn func(), err error) {
	return openDaemonWith(c, run, recheck, slog.New(slog.NewTextHandler(os.Stderr, nil)), nil)
}

// openDaemonLog is openDaemon with its own logger.
func openDaemonLog(c *cli.Context, run daemon.Options, log *slog.Logger) (*daemon.Daemon, *store.Store, func(), error) {
	return openDaemonWith(c, run, false, log, nil)
}

func openDaemonWith(c *cli.Context, run daemon.Options, recheck bool, log *slog.Logger, an *daemon.AnalysisOptions) (d *daemon.Daemon, st *store.Store, closeFn func(), err error) {
	key, err := loadKey(c, false)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := os.MkdirAll(c.String("data"), 0o755); err != nil {
		return nil, nil, nil, fail(exitFailure, "cannot create data directory: %v", unwrapPath(err))
	}
	st, err = store.Open(dbPath(c))
	if err != nil {
		return nil, nil, nil, fail(exitFailure, "cannot open store %s: %v", dbPath(c), err)
	}
	cfg := arbiter.DefaultConfig()
	cfg.MaxGames = c.Int("max-games")
	cfg.Play = !c.Bool("no-play")
	cfg.Arbitrate = !c.Bool("no-arbiter")
	lim := limitsOf(c)
	d, err = daemon.Open(daemon.Config{Store: st, Key: key, Relays: relayList(c), Arbiter: cfg, Limits: &lim,
		Log: log, Think: c.Duration("think"), Run: run, Recheck: recheck, Analysis: an, MaxRelays: c.Int("max-relays"),
		AllowPrivateRelays: allowPrivate(c)})
	if err != nil {
		_ = st.Close()
		return nil, nil, nil, fail(exitFailure, "%v", err)
	}
	return d, st, func() { _ = d.Close(); _ = st.Close() }, nil
}

// daemonAnalysis reads the daemon's analysis flags: nil when off, or when
// auto finds no Stockfish (said on stderr).
func daemonAnalysis(c *cli.Context) (*daemon.AnalysisOptions, error) {
	engine := c.String("analyse")
	switch engine {
	case "off":
		return nil, nil
	case "auto":
		if _, err := analysis.FindStockfish(c.String("stockfish")); err != nil {
			fmt.Fprintln(os.Stderr, "vesper: no Stockfish found: finished games are not analysed (--analyse builtin uses vesper's own engine)")
			return nil, nil
		}
		engine = "stockfish"
	case "stockfish", "builtin":
	default:
		return nil, fail(exitUsage, "--analyse must be auto, stockfish, builtin or off, not %q", engine)
	}
	o, err := engineOptions(engine, c.String("stockfish"), c.Int("analysis-depth"), c.Int64("analysis-nodes"), c.Int("analysis-nice"))
	if err != nil {
		return nil, err
	}
	if o.SolverNodes, err = solverNodes(c, "analysis-solver-nodes"); err != nil {
		return nil, err
	}
	if share := c.Float64("analysis-share"); share <= 0 || share > 1 {
		return nil, fail(exitUsage, "--analysis-share must be within (0, 1], not %v", share)
	}
	return &daemon.AnalysisOptions{Engine: o.Options, Share: c.Float64("analysis-share")}, nil
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"vesper/daemon"
	"vesper/internal/sim"
	"vesper/store"
)

func simCommand() *cli.Command {
	return &cli.Command{
		Name:  "sim",
		Usage: "simulate a season of agents over faulty local relays and check the daemon against the offline fold",
		Description: "Generates a seeded season: AGENTS keys post challenges, accepts, moves (mostly legal,\n" +
			"some illegal, late, duplicated or future-dated), results, timeout claims, arbitration\n" +
			"requests and rulings, stamped over the past DAYS days. Starts five embedded relays on\n" +
			"loopback: a clean one, one that drops connections at random, one that delays delivery\n" +
			"by seconds, one that sends every event twice with garbage frames between, and one\n" +
			"that goes down for a while and comes back. Publishes the history, runs the daemon\n" +
			"(this binary, with a key of its own) against them, publishes the season's last two\n" +
			"simulated days over LIVE of real time while killing the daemon with SIGKILL KILLS\n" +
			"times, then waits for it to catch up (for as long as it makes progress: no total time\n" +
			"limit) and checks that its stored summary of every match equals the offline fold\n" +
			"(`vesper verify`) of every event the relays hold, that it stored every event and never\n" +
			"published one duty twice, and that the site links every match. Exit status 0 when every\n" +
			"check passes, 1 otherwise.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "agents", Value: 50, Usage: "agent keys"},
			&cli.IntFlag{Name: "matches", Usage: "challenges posted (default: 8 per agent)"},
			&cli.IntFlag{Name: "days", Value: 14, Usage: "the season starts this many days ago"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "the same seed gives the same agents and games"},
			&cli.Int64Flag{Name: "end", Usage: "the season's present, unix seconds (default: now); with --seed it fixes every event"},
			&cli.DurationFlag{Name: "live", Value: time.Minute, Usage: "real time over which the season's last two simulated days are published"},
			&cli.IntFlag{Name: "kills", Value: 5, Usage: "times the daemon is killed with SIGKILL and restarted"},
			&cli.IntFlag{Name: "forged", Usage: "events with a bad id or signature stored on the relays unchecked"},
			&cli.DurationFlag{Name: "stall", Aliases: []string{"settle"}, Value: sim.DefaultStall,
				Usage: "how long the daemon may go without progress while catching up after the faults stop (no total limit: a slow host takes longer)"},
			&cli.StringFlag{Name: "dir", Usage: "keep the daemon's data, log and site here (default: a temporary directory, removed when every check passes)"},
			jsonFlag(),
		},
		Action: func(c *cli.Context) error {
			bin, err := os.Executable()
			if err != nil {
				return fail(exitFailure, "cannot find this binary to run the daemon: %v", err)
			}
			o := sim.Options{Agents: c.Int("agents"), Matches: c.Int("matches"), Days: c.Int("days"),
				Seed: c.Uint64("seed"), End: c.Int64("end"), Live: c.Duration("live"), Kills: c.Int("kills"), Forged: c.Int("forged"),
				Stall: c.Duration("stall"), Dir: c.String("dir"), Fleet: sim.DefaultFleet(), BuildSite: simSite}
			if o.Agents < 3 {
				return fail(exitUsage, "--agents: at least 3 (two players and an arbiter)")
			}
			rep, err := sim.Run(c.Context, o, bin, os.Stderr)
			if err != nil {
				return fail(exitFailure, "sim: %v", err)
			}
			if c.Bool("json") {
				b, _ := json.Marshal(rep)
				fmt.Println(string(b))
			} else {
				rep.Print(os.Stdout)
			}
			if !rep.OK {
				return fail(exitFailure, "sim: %d check(s) failed; the data is in %s", len(rep.Failures), rep.Dir)
			}
			return nil
		},
	}
}

// simSite is the site build the simulation checks: the daemon's, listing
// every account.
func simSite(ctx context.Context, st *store.Store, dir, house string, now int64) error {
	// Every finished game is graded first, as a daemon's background
	// analysis would in time: Stockfish at a shallow depth when installed
	// (a season has hundreds of games), else the built-in engine.
	eng, err := engineOptions("", "", simAnalysisDepth, simAnalysisNodes, 0)
	if err != nil {
		return err
	}
	if eng.Path == "" {
		eng.Depth = 0
	} else {
		eng.Nodes = 0
	}
	if _, _, err := daemon.AnalyseAll(ctx, st, eng.Options, now); err != nil {
		return fmt.Errorf("analysis: %w", err)
	}
	_, err = daemon.BuildSite(ctx, st, dir, house, true, now)
	return err
}

// The simulation's analysis budget: Stockfish's depth, or the built-in
// engine's nodes per position.
const (
	simAnalysisDepth = 8
	simAnalysisNodes = 20_000
)

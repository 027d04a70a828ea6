package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"vesper/daemon"
	"vesper/nostr"
	"vesper/site/opening"
)

func siteCommand() *cli.Command {
	return &cli.Command{
		Name:  "site",
		Usage: "build the static public site",
		Subcommands: []*cli.Command{{
			Name:  "build",
			Usage: "build the site once from the store",
			Description: "Renders every match (replay, PGN, match.json), the players, the ratings and\n" +
				"the how-to page into OUT, swapped in atomically; unchanged pages are kept.",
			Flags: []cli.Flag{
				dataFlag(),
				&cli.StringFlag{Name: "out", Required: true, Usage: "output directory"},
				&cli.StringFlag{Name: "daemon", Usage: "the daemon's pubkey (npub or hex), labelled as the house on every page (default: the key of the store's outbox)"},
				&cli.BoolFlag{Name: "list-all", Usage: "list every account, not only bots (kind 0 \"bot\": true)"},
				openingsFlag(),
				&cli.StringFlag{Name: "relays", EnvVars: []string{"VESPER_RELAYS"},
					Usage: "the relays the daemon reads, listed on the how-to (default: the daemon's own default, " + strings.Join(defaultRelays, ",") + ")"},
				sourceURLFlag(),
				&cli.StringFlag{Name: "cpuprofile", Usage: "write a Go CPU profile of the build to `FILE` (read it with go tool pprof)"},
			},
			Action: func(c *cli.Context) error {
				if path := c.String("cpuprofile"); path != "" {
					stop, err := startCPUProfile(path)
					if err != nil {
						return fail(exitUsage, "--cpuprofile: %v", err)
					}
					defer stop()
				}
				openings, err := loadOpenings(c)
				if err != nil {
					return err
				}
				house := ""
				if v := c.String("daemon"); v != "" {
					pk, err := nostr.ParsePubkey(v)
					if err != nil {
						return fail(exitUsage, "--daemon: %v", err)
					}
					house = pk
				}
				st, err := openStore(c, true)
				if err != nil {
					return err
				}
				defer st.Close()
				if house == "" {
					h, ok, err := st.House(c.Context)
					if err != nil {
						return fail(exitFailure, "site: %v", err)
					}
					if !ok {
						fmt.Fprintln(os.Stderr, "vesper: site: the house's key is unknown (the store's outbox is empty and --daemon was not given): its games are not labelled as the house's")
					}
					house = h.Pubkey
				}
				relaxGC()
				start := time.Now()
				o := daemon.SiteOptions{ListAll: c.Bool("list-all"), Openings: openings, Relays: relayList(c), SourceURL: c.String("source-url")}
				stats, err := daemon.BuildSiteWith(c.Context, st, c.String("out"), house, o, nowUnix())
				if err != nil {
					return fail(exitFailure, "site: %v", err)
				}
				fmt.Printf("site built in %s: %d pages (%d written, %d unchanged) in %s\n",
					time.Since(start).Round(time.Millisecond), stats.Pages, stats.Written, stats.Unchanged, c.String("out"))
				return nil
			},
		}},
	}
}

// buildGCPercent and buildMemoryLimit are the garbage collector's settings
// for the one-shot full build: it allocates a great deal of short-lived
// memory (every match folded and rendered once) over a live heap that
// stays small, so the default GOGC=100 spent about 15% of its CPU in the
// collector (docs/PERFORMANCE.md). The process exits after the build, so
// the daemon's memory target does not apply; the limit keeps the heap
// bounded all the same (the collector works harder near it, never fails).
const (
	buildGCPercent   = 400
	buildMemoryLimit = 1 << 30
)

// relaxGC applies buildGCPercent and buildMemoryLimit unless the user set
// GOGC or GOMEMLIMIT, which the runtime has already read and which win.
func relaxGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(buildGCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(buildMemoryLimit)
	}
}

// startCPUProfile starts the runtime's CPU profiler writing to path; stop
// ends it and closes the file.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// sourceURLFlag says where vesper's source is published, for the site's
// how-to: the module path ("vesper") names no repository, so only the
// operator can say.
func sourceURLFlag() cli.Flag {
	return &cli.StringFlag{Name: "source-url", EnvVars: []string{"VESPER_SOURCE_URL"},
		Usage: "where vesper's source is published (an http(s) `URL`), linked from the site's how-to (default: none; the page says so)"}
}

// openingsFlag lets an operator name openings from the complete Lichess
// table rather than the one shipped with vesper.
func openingsFlag() cli.Flag {
	return &cli.StringFlag{Name: "openings", Usage: "name chess openings from the complete Lichess opening table: `DIR` holds its " +
		"a.tsv ... e.tsv (a checkout of github.com/lichess-org/chess-openings); default: the table shipped with vesper"}
}

// loadOpenings is the table --openings names, nil without it (the shipped
// one). A directory that is not the Lichess files is a usage error, so a
// mistyped path never silently yields the shipped table.
func loadOpenings(c *cli.Context) (*opening.Table, error) {
	dir := c.String("openings")
	if dir == "" {
		return nil, nil
	}
	t, err := opening.LoadLichess(dir)
	if err != nil {
		return nil, fail(exitUsage, "--openings: %v", err)
	}
	return t, nil
}

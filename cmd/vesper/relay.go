package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"vesper/relayd"
)

// relayCommand runs the embedded relay (khatru) until SIGINT or SIGTERM:
// a local relay for trying the protocol, or for tests against a real one.
func relayCommand() *cli.Command {
	return &cli.Command{
		Name:      "relay",
		Usage:     "run a local Nostr relay until interrupted",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:7447", Usage: "`HOST:PORT` to listen on"},
			&cli.StringFlag{Name: "db", Usage: "SQLite `FILE` to keep events in (default: memory only, lost on exit)"},
			&cli.IntFlag{Name: "max-limit", Value: relayd.DefaultMaxLimit, Usage: "most events returned per filter"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return fail(exitUsage, "relay takes no arguments (got %q)", c.Args().First())
			}
			ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
			defer stop()
			r, err := relayd.Start(ctx, relayd.Options{
				Listen:   c.String("listen"),
				DBPath:   c.String("db"),
				MaxLimit: c.Int("max-limit"),
				Name:     "vesper relay",
			})
			if err != nil {
				return fail(exitFailure, "%v", err)
			}
			store := "memory"
			if db := c.String("db"); db != "" {
				store = db
			}
			fmt.Fprintf(c.App.Writer, "vesper relay listening on %s (events in %s); Ctrl-C stops it\n", r.URL(), store)
			<-ctx.Done()
			return r.Close()
		},
	}
}

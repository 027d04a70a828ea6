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
// It answers NIP-77 reconciliations, so daemons that sync with it fetch
// exactly what they lack.
func relayCommand() *cli.Command {
	return &cli.Command{
		Name:      "relay",
		Usage:     "run a local Nostr relay until interrupted",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:7447", Usage: "`HOST:PORT` to listen on"},
			&cli.StringFlag{Name: "db", Usage: "SQLite `FILE` to keep events in (default: memory only, lost on exit)"},
			&cli.IntFlag{Name: "max-limit", Value: relayd.DefaultMaxLimit, Usage: "most events returned per filter"},
			&cli.Int64Flag{Name: "max-message", Value: relayd.PublicLimits().MaxMessageBytes, Usage: "largest websocket message in bytes (an event is at most 65536)"},
			&cli.IntFlag{Name: "events-per-minute", Value: relayd.PublicLimits().EventsPerMinute, Usage: "EVENTs per connection per minute (0: no limit)"},
			&cli.IntFlag{Name: "reqs-per-minute", Value: relayd.PublicLimits().ReqsPerMinute, Usage: "REQ/COUNT/NEG-OPEN filters per connection per minute (0: no limit)"},
			&cli.IntFlag{Name: "max-connections", Value: relayd.PublicLimits().MaxConnections, Usage: "websocket connections open at once (0: no limit)"},
			&cli.BoolFlag{Name: "auth", Usage: "require NIP-42 AUTH: a challenge on connect, and REQ, EVENT and NEG-OPEN refused \"auth-required:\" until the client authenticates (any key)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return fail(exitUsage, "relay takes no arguments (got %q)", c.Args().First())
			}
			ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
			defer stop()
			if !relayd.IsLoopback(c.String("listen")) {
				auth := "no auth"
				if c.Bool("auth") {
					auth = "AUTH by any key"
				}
				fmt.Fprintf(c.App.ErrWriter, "vesper relay: warning: %s accepts connections from other machines; this relay is meant for local use (%s, no spam filter, only the per-connection limits below)\n", c.String("listen"), auth)
			}
			r, err := relayd.Start(ctx, relayd.Options{
				Listen:       c.String("listen"),
				DBPath:       c.String("db"),
				MaxLimit:     c.Int("max-limit"),
				NoNegentropy: c.Bool("no-nip77"),
				RequireAuth:  c.Bool("auth"),
				Name:         "vesper relay",
				Limits: relayd.Limits{MaxMessageBytes: c.Int64("max-message"), EventsPerMinute: c.Int("events-per-minute"),
					ReqsPerMinute: c.Int("reqs-per-minute"), MaxConnections: c.Int("max-connections")},
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

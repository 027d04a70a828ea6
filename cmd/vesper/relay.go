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
			&cli.IntFlag{Name: "max-connections-per-ip", Value: relayd.PublicLimits().MaxConnectionsPerIP, Usage: "connections one client address (IPv4, or IPv6 /64) may hold, so one cannot lock the others out (0: no limit)"},
			&cli.DurationFlag{Name: "idle-timeout", Value: relayd.PublicLimits().IdleTimeout, Usage: "close a connection that sent nothing this long and holds no subscription or NIP-77 session (0: never)"},
			&cli.IntFlag{Name: "neg-sessions-per-connection", Value: relayd.PublicLimits().NegSessionsPerConnection, Usage: "NIP-77 sessions open at once on one connection (0: no cap)"},
			&cli.IntFlag{Name: "neg-sessions", Value: relayd.PublicLimits().NegSessionsTotal, Usage: "NIP-77 sessions open at once on the relay (0: no cap)"},
			&cli.Int64Flag{Name: "neg-memory", Value: relayd.PublicLimits().NegMemoryBytes, Usage: "bytes the open NIP-77 sessions may hold, each counted as matching every stored event (0: no bound)"},
			&cli.IntFlag{Name: "max-subscriptions", Value: relayd.PublicLimits().MaxSubscriptions, Usage: "subscriptions one connection may hold open; a REQ past it gets CLOSED (0: no limit)"},
			&cli.IntFlag{Name: "max-in-flight", Value: relayd.PublicLimits().MaxInFlight, Usage: "messages of one connection handled at once; its next message is read when one is answered (0: no bound)"},
			&cli.Int64Flag{Name: "memory-store", Value: relayd.PublicLimits().MemoryStoreBytes, Usage: "bytes of events kept without --db; more are refused (0: no bound)"},
			&cli.BoolFlag{Name: "no-nip77", Usage: "do not answer NIP-77, as most public relays (77 is not listed in NIP-11; NEG-OPEN gets a NOTICE)"},
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
				fmt.Fprintf(c.App.ErrWriter, "vesper relay: warning: %s accepts connections from other machines; this relay is meant for local use (%s, no spam filter, only the limits of --help: per connection, per address, NIP-77 sessions, memory)\n", c.String("listen"), auth)
			}
			r, err := relayd.Start(ctx, relayd.Options{
				Listen:       c.String("listen"),
				DBPath:       c.String("db"),
				MaxLimit:     c.Int("max-limit"),
				NoNegentropy: c.Bool("no-nip77"),
				RequireAuth:  c.Bool("auth"),
				Name:         "vesper relay",
				Limits:       relayLimits(c),
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

// relayLimits reads the limit flags of `vesper relay`.
func relayLimits(c *cli.Context) relayd.Limits {
	return relayd.Limits{MaxMessageBytes: c.Int64("max-message"), EventsPerMinute: c.Int("events-per-minute"),
		ReqsPerMinute: c.Int("reqs-per-minute"), MaxConnections: c.Int("max-connections"),
		MaxConnectionsPerIP: c.Int("max-connections-per-ip"), IdleTimeout: c.Duration("idle-timeout"),
		NegSessionsPerConnection: c.Int("neg-sessions-per-connection"), NegSessionsTotal: c.Int("neg-sessions"),
		NegMemoryBytes: c.Int64("neg-memory"), MemoryStoreBytes: c.Int64("memory-store"),
		MaxSubscriptions: c.Int("max-subscriptions"), MaxInFlight: c.Int("max-in-flight"),
		MaxStrikes: relayd.PublicLimits().MaxStrikes}
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"vesper/daemon"
	"vesper/match"
	"vesper/nostr/relay/reconcile"
)

func syncCommand() *cli.Command {
	return &cli.Command{
		Name:      "sync",
		Usage:     "bring the store up to date with the relays once (NIP-77 where offered), then exit",
		ArgsUsage: " ",
		Description: "Reconciles DIR/vesper.db with every relay whatever the created_at of what it\n" +
			"lacks: with NIP-77 (negentropy) where a relay offers it, the store's ids against\n" +
			"the relay's for the game kinds, fetching exactly the missing events; otherwise\n" +
			"every event of each match that is not final, the challenges of the last " + match.Span(match.ChallengeExpiry) + "\n" +
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
			n, _, closeFn, err := openDaemonLog(c, daemon.Options{}, slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
			if err != nil {
				return err
			}
			defer closeFn()
			return syncOnce(c.Context, n, os.Stdout, syncFlags{
				json: c.Bool("json"), full: c.Bool("full"), noNIP77: c.Bool("no-nip77"), relayTimeout: c.Duration("relay-timeout"),
			})
		},
	}
}

type syncFlags struct {
	json, full, noNIP77 bool
	relayTimeout        time.Duration
}

func syncOnce(ctx context.Context, n *daemon.Daemon, w io.Writer, f syncFlags) error {
	req := daemon.SyncRequest{Full: f.full, NoNIP77: f.noNIP77, RelayTimeout: f.relayTimeout}
	var bar *progressbar.ProgressBar
	if term.IsTerminal(int(os.Stderr.Fd())) && !f.json {
		bar = progressbar.NewOptions(-1, progressbar.OptionSetWriter(os.Stderr),
			progressbar.OptionSetDescription("syncing"), progressbar.OptionShowCount(),
			progressbar.OptionSpinnerType(14))
		var mu sync.Mutex
		fetched := map[string]int{}
		req.Progress = func(p reconcile.Progress) {
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
	rep, err := n.SyncOnce(ctx, req)
	if bar != nil {
		_ = bar.Finish()
		fmt.Fprintln(os.Stderr)
	}
	if err != nil {
		return fail(exitFailure, "sync: %v", err)
	}
	stats := rep.Relays
	failed := 0
	for _, st := range stats {
		if st.Error != "" {
			failed++
		}
	}
	// Events a relay listed and did not send, though asked twice: the
	// store is known to be incomplete, which is not success.
	var missing []string
	for _, st := range stats {
		for _, id := range st.MissingIDs {
			missing = append(missing, st.Relay+" "+id)
		}
	}
	var incomplete error
	if failed < len(stats) && len(missing) > 0 {
		incomplete = fail(exitMissing, "sync: relays listed events they did not send, though asked twice (the next sync asks again): %s", strings.Join(missing, ", "))
	}
	if f.json && incomplete != nil {
		// One JSON object: the error, with the report's fields.
		e := incomplete.(*exitError)
		e.detail = rep
		return e
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
	if incomplete != nil {
		return incomplete
	}
	if failed == len(stats) {
		var auth []string
		for _, st := range stats {
			if st.AuthRequired {
				auth = append(auth, st.Relay)
			}
		}
		if len(auth) > 0 {
			return fail(exitAuth, "sync: no relay could be synced; %s requires NIP-42 authentication to be read: give a key with --key", strings.Join(auth, ", "))
		}
		return fail(exitRelays, "sync: no relay could be synced")
	}
	return nil
}

// syncLine is the summary of one relay: how, compared, fetched, refused.
func syncLine(st reconcile.Stats) string {
	s := fmt.Sprintf("%s: %s, compared %d, fetched %d, refused %d", st.Relay, st.Method, st.Compared, st.Fetched, st.Refused)
	if st.Missing > 0 {
		s += fmt.Sprintf(", %d listed but not sent", st.Missing)
	}
	if st.Splits > 0 || st.Paged > 0 {
		s += fmt.Sprintf(", %d windows split (set cut by the relay), %d paged", st.Splits, st.Paged)
	}
	if st.NegError != "" && st.Method == "fallback" {
		s += " (NIP-77: " + st.NegError + ")"
	}
	if st.Error != "" {
		s += ", error: " + st.Error
	}
	return s
}

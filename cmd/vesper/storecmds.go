package main

import (
	"bufio"
	"fmt"
	"log/slog"
	"os"
	"sort"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"vesper/daemon"
	"vesper/match"
	"vesper/nostr"
	"vesper/store"
)

func rebuildCommand() *cli.Command {
	return &cli.Command{
		Name:  "rebuild",
		Usage: "re-fold every stored match from the raw events and rewrite the summaries",
		Description: "Every stored event passed its checks when it arrived. --verify checks every\n" +
			"id and signature again (all cores) and leaves out any that fail, for a store\n" +
			"copied from elsewhere; the count is printed and each one is logged.",
		Flags: []cli.Flag{dataFlag(), &cli.BoolFlag{Name: "verify", Usage: "check every stored event's id and signature again"}},
		Action: func(c *cli.Context) error {
			st, err := openStore(c, false)
			if err != nil {
				return err
			}
			defer st.Close()
			n, err := daemon.Open(daemon.Config{Store: st, Recheck: c.Bool("verify"),
				Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
			if err != nil {
				return fail(exitFailure, "%v", err)
			}
			var bar *progressbar.ProgressBar
			progress := func(done, total int) {}
			if term.IsTerminal(int(os.Stderr.Fd())) {
				progress = func(done, total int) {
					if bar == nil {
						bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(os.Stderr),
							progressbar.OptionSetDescription("folding matches"), progressbar.OptionShowCount())
					}
					_ = bar.Set(done)
				}
			}
			total, rejected, err := n.Rebuild(c.Context, progress)
			if bar != nil {
				_ = bar.Finish()
				fmt.Fprintln(os.Stderr)
			}
			if err != nil {
				return fail(exitFailure, "rebuild: %v", err)
			}
			fmt.Printf("rebuilt %d matches in %s\n", total, st.Path())
			if c.Bool("verify") {
				fmt.Printf("%d stored events failed their check and were left out\n", rejected)
			}
			return nil
		},
	}
}

// openStore opens an existing store; readOnly never writes, so it is safe
// beside a running daemon.
func openStore(c *cli.Context, readOnly bool) (*store.Store, error) {
	path := dbPath(c)
	if _, err := os.Stat(path); err != nil {
		return nil, fail(exitFailure, "no store at %s (is --data right? the daemon or demo creates it)", path)
	}
	open := store.Open
	if readOnly {
		open = store.OpenReadOnly
	}
	st, err := open(path)
	if err != nil {
		return nil, fail(exitFailure, "cannot open store %s: %v", path, err)
	}
	return st, nil
}

func matchesCommand() *cli.Command {
	return &cli.Command{
		Name:  "matches",
		Usage: "list the stored match summaries",
		Description: "With --json, one summary per line in the schema of `vesper verify --json`.\n" +
			"Safe to run while a daemon writes to the same store.",
		Flags: []cli.Flag{dataFlag(), jsonFlag()},
		Action: func(c *cli.Context) error {
			st, err := openStore(c, true)
			if err != nil {
				return err
			}
			defer st.Close()
			sums, err := st.Summaries(c.Context)
			if err != nil {
				return fail(exitFailure, "store: %v", err)
			}
			out := bufio.NewWriter(os.Stdout)
			defer out.Flush()
			if c.Bool("json") {
				for _, s := range sums {
					out.Write(s.JSON)
					if len(s.JSON) > 0 && s.JSON[len(s.JSON)-1] != '\n' {
						out.WriteByte('\n')
					}
				}
				return nil
			}
			fmt.Fprintf(out, "%-12s  %-6s  %-7s  %-5s  %s\n", "MATCH", "GAME", "STATUS", "FINAL", "FIRST / SECOND")
			for _, s := range sums {
				final := "no"
				if s.Final {
					final = "yes"
				}
				fmt.Fprintf(out, "%-12s  %-6s  %-7s  %-5s  %s / %s\n", short(s.Match), s.Game, s.Status, final, short(s.First), short(s.Second))
			}
			return nil
		},
	}
}

func exportCommand() *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "print a stored match as match.json (PROTOCOL.md section 6)",
		ArgsUsage: "MATCH",
		Description: "MATCH is a match id (hex, note1 or nevent1). The output is always one JSON\n" +
			"object, match.json, which `vesper verify` checks; --json only makes errors JSON too.\n" +
			"Exit status 6 when the store holds no such match.",
		Flags: []cli.Flag{dataFlag(), jsonFlag(),
			&cli.StringFlag{Name: "match", Usage: "the match id, as the positional MATCH (kept for old scripts)"}},
		Action: func(c *cli.Context) error {
			ref := c.String("match")
			switch {
			case c.NArg() > 1:
				return fail(exitUsage, "export takes one MATCH, got %d arguments", c.NArg())
			case c.NArg() == 1 && ref != "" && c.Args().First() != ref:
				return fail(exitUsage, "MATCH and --match name different matches")
			case c.NArg() == 1:
				ref = c.Args().First()
			case ref == "":
				return fail(exitUsage, "export needs a MATCH (vesper export MATCH > match.json)")
			}
			id, err := nostr.ParseEventRef(ref)
			if err != nil {
				return fail(exitUsage, "MATCH: %v", err)
			}
			st, err := openStore(c, true)
			if err != nil {
				return err
			}
			defer st.Close()
			stored, err := st.MatchEvents(c.Context, id)
			if err != nil {
				return fail(exitFailure, "store: %v", err)
			}
			if len(stored) == 0 {
				return fail(exitNotFound, "no match %s in the store", id)
			}
			os.Stdout.Write(matchJSON(id, stored, nowUnix()))
			return nil
		},
	}
}

// matchJSON renders section 6's match.json: every event exactly as signed,
// in fold order, with the stored seen_at and the summary. A stub (an event
// stored without its body, match.Stub) is listed in the summary's ignored
// list but not among the events: its body is gone, and it would not
// verify.
func matchJSON(id string, stored []store.StoredEvent, now int64) []byte {
	evs := make([]*nostr.Event, 0, len(stored))
	seen := map[string]int64{}
	for _, s := range stored {
		evs = append(evs, s.Event)
		seen[s.Event.ID] = s.SeenAt
	}
	var summary any
	st, err := match.Fold(id, evs, seen)
	if err != nil {
		summary = match.ErrorSummary{Match: &id, Error: err.Error()}
		sort.Slice(evs, func(i, j int) bool { return match.Less(evs[i], evs[j]) })
	} else {
		sum := st.Summary(now)
		summary = sum
		evs = st.FileEvents() // the reveals too (section 8.2)
	}
	kept := evs[:0:0]
	for _, ev := range evs {
		if !match.IsStub(ev) {
			kept = append(kept, ev)
		}
	}
	evs = kept
	b := []byte(`{"match":`)
	b = nostr.AppendString(b, id)
	b = append(b, `,"events":[`...)
	for i, ev := range evs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, nostr.MarshalEvent(ev)...)
	}
	b = append(b, `],"seen_at":{`...)
	for i, ev := range evs {
		if i > 0 {
			b = append(b, ',')
		}
		b = nostr.AppendString(b, ev.ID)
		b = append(b, ':')
		b = fmt.Appendf(b, "%d", seen[ev.ID])
	}
	b = append(b, `},"summary":`...)
	line := match.MarshalLine(summary)
	b = append(b, line[:len(line)-1]...)
	return append(b, "}\n"...)
}

func openStoreAt(path string) (*store.Store, error) {
	st, err := store.Open(path)
	if err != nil {
		return nil, fail(exitFailure, "cannot open store %s: %v", path, err)
	}
	return st, nil
}

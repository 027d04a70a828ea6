package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	gn "github.com/nbd-wtf/go-nostr"
	"github.com/urfave/cli/v2"

	"vesper/match"
	"vesper/match/chessjs"
	"vesper/match/gomoku"
	"vesper/nostr"
	"vesper/nostr/relay"
)

func statusCommand() *cli.Command {
	return &cli.Command{
		Name:      "status",
		Usage:     "show a match: board, players, moves, whose turn, deadline, result, ignored events",
		ArgsUsage: "MATCH",
		Flags:     []cli.Flag{relaysFlag(), jsonFlag()},
		Action: func(c *cli.Context) error {
			a, err := args(c, "MATCH")
			if err != nil {
				return err
			}
			st, err := fetchState(c.Context, c, a[0])
			if err != nil {
				return err
			}
			now := nowUnix()
			if c.Bool("json") {
				return printJSON(st.Summary(now))
			}
			printStatus(os.Stdout, st, now)
			return nil
		},
	}
}

func watchCommand() *cli.Command {
	return &cli.Command{
		Name:      "watch",
		Usage:     "follow a match, printing each change, until the game is over",
		ArgsUsage: "MATCH",
		Flags:     []cli.Flag{relaysFlag(), jsonFlag(), &cli.DurationFlag{Name: "every", Value: 3 * time.Second, Usage: "poll interval"}},
		Action: func(c *cli.Context) error {
			a, err := args(c, "MATCH")
			if err != nil {
				return err
			}
			last := ""
			for {
				st, err := fetchState(c.Context, c, a[0])
				if err != nil {
					return err
				}
				now := nowUnix()
				line := string(match.MarshalLine(st.Summary(now)))
				if line != last {
					last = line
					if c.Bool("json") {
						fmt.Print(line)
					} else {
						printStatus(os.Stdout, st, now)
						fmt.Println(strings.Repeat("-", 40))
					}
				}
				if st.Over && st.Final {
					return nil
				}
				select {
				case <-c.Context.Done():
					return nil
				case <-time.After(c.Duration("every")):
				}
			}
		},
	}
}

func printStatus(w io.Writer, st *match.State, now int64) {
	fmt.Fprintf(w, "match   %s (%s)\n", st.Match, st.Kind)
	fmt.Fprintf(w, "first   %s\n", nostr.Npub(st.First))
	if st.Accepted {
		fmt.Fprintf(w, "second  %s\n", nostr.Npub(st.Second))
	} else if st.Invitee != "" {
		fmt.Fprintf(w, "invited %s\n", nostr.Npub(st.Invitee))
	}
	fmt.Fprintf(w, "status  %s\n\n", st.Status(now))
	board, san := render(st)
	fmt.Fprintln(w, board)
	if len(san) > 0 {
		fmt.Fprintf(w, "moves   %s\n", strings.Join(san, " "))
	}
	switch {
	case st.Over:
		fmt.Fprintf(w, "result  %s (%s)", st.Result, st.Reason)
		if st.Final {
			fmt.Fprintf(w, ", final by %s (event %s)\n", st.FinalBy, st.FinalEvent)
		} else {
			fmt.Fprintf(w, ", not final yet: both players sign it, or a ruling after an arbitration request\n")
		}
	case st.Accepted:
		dl := st.ClockStart() + match.MoveClock
		fmt.Fprintf(w, "turn    %s player, ply %d; clock runs until %s\n", st.ToMove(), st.Plies()+1, time.Unix(dl, 0).UTC().Format(time.RFC3339))
	default:
		fmt.Fprintf(w, "waiting for an accept until %s\n", time.Unix(st.CreatedAt+match.ChallengeExpiry, 0).UTC().Format(time.RFC3339))
	}
	if len(st.Ignored) > 0 {
		fmt.Fprintf(w, "ignored events:\n")
		for _, i := range st.Ignored {
			fmt.Fprintf(w, "  %s  %s\n", short(i.ID), i.Reason())
		}
	}
}

// render draws the board and, for chess, the moves in SAN.
func render(st *match.State) (string, []string) {
	if st.Kind == nostr.GameGomoku {
		g := gomoku.NewGame()
		for _, m := range st.Moves {
			_, _ = g.Move(m)
		}
		return g.String(), st.Moves
	}
	g := chessjs.NewGame()
	var san []string
	for _, m := range st.Moves {
		mv, err := g.Move(m)
		if err != nil {
			break
		}
		san = append(san, mv.SAN)
	}
	return g.Position().Board().Draw(), san
}

func openCommand() *cli.Command {
	return &cli.Command{
		Name:  "open",
		Usage: "list open challenges, newest first",
		Flags: []cli.Flag{relaysFlag(), jsonFlag()},
		Action: func(c *cli.Context) error {
			now := nowUnix()
			since := gn.Timestamp(now - match.ChallengeExpiry)
			got, err := relay.Fetch(c.Context, relayList(c), []gn.Filter{{
				Kinds: []int{nostr.KindChallenge}, Tags: gn.TagMap{"t": {nostr.GamesTopic}}, Since: &since,
			}}, netTimeout)
			if err != nil {
				return fail(exitRelays, "could not fetch challenges: %v", err)
			}
			byID := map[string]*nostr.Event{}
			var ids []string
			for _, r := range got {
				byID[r.Event.ID] = r.Event
				ids = append(ids, r.Event.ID)
			}
			var accepts []relay.Received
			if len(ids) > 0 {
				accepts, err = relay.Fetch(c.Context, relayList(c), []gn.Filter{{
					Kinds: []int{nostr.KindAccept}, Tags: gn.TagMap{"g": ids},
				}}, netTimeout)
				if err != nil {
					return fail(exitRelays, "could not fetch accepts: %v", err)
				}
			}
			var open []*match.State
			for id, ch := range byID {
				evs := []*nostr.Event{ch}
				for _, a := range accepts {
					evs = append(evs, a.Event)
				}
				st, err := match.Fold(id, evs, nil)
				if err == nil && st.Status(now) == match.StatusOpen {
					open = append(open, st)
				}
			}
			sort.Slice(open, func(i, j int) bool {
				if open[i].CreatedAt != open[j].CreatedAt {
					return open[i].CreatedAt > open[j].CreatedAt
				}
				return open[i].Match < open[j].Match
			})
			type row struct {
				Match      string `json:"match"`
				Game       string `json:"game"`
				Challenger string `json:"challenger"`
				Invitee    string `json:"invitee,omitempty"`
				CreatedAt  int64  `json:"created_at"`
				AgeSeconds int64  `json:"age_seconds"`
			}
			if c.Bool("json") {
				rows := []row{}
				for _, s := range open {
					rows = append(rows, row{s.Match, s.Kind, s.First, s.Invitee, s.CreatedAt, now - s.CreatedAt})
				}
				return printJSON(map[string]any{"open": rows})
			}
			if len(open) == 0 {
				fmt.Println("no open challenges")
				return nil
			}
			fmt.Printf("%-64s  %-6s  %-8s  %-12s  %s\n", "MATCH", "GAME", "AGE", "CHALLENGER", "INVITEE")
			for _, s := range open {
				inv := "anyone"
				if s.Invitee != "" {
					inv = short(s.Invitee)
				}
				age := time.Duration(now-s.CreatedAt) * time.Second
				fmt.Printf("%-64s  %-6s  %-8s  %-12s  %s\n", s.Match, s.Kind, age.Round(time.Minute), short(s.First), inv)
			}
			return nil
		},
	}
}

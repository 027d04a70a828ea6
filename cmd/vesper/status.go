package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"vesper/match"
	"vesper/nostr"
	"vesper/seat"
)

// statusHelp documents the status object (docs/PLAYING.md shows the same).
const statusHelp = "--json prints the status object: the summary of `vesper verify --json` (match, game, first,\n" +
	"second, status, result, reason, plies, final_hash, final, final_by, final_event, moves, ignored)\n" +
	"and: invitee, created_at, expires, ply (the pending ply), to_move {role, pubkey, color},\n" +
	"nevent (the challenge as nevent1, with relays that hold it as hints), my_role, my_color,\n" +
	"my_turn (for --key), fen, pgn, board, san_moves, legal_moves\n" +
	"([{uci, san}] in chess, [{point}] in gomoku, [{column}] in Connect Four), in_check, deadline {unix, rfc3339},\n" +
	"clock_expired, can_claim_timeout, must_sign, signatures, offer (the other player's pending\n" +
	"signature), requests, last_used, relays {answered, failed}, now.\n" +
	"Events are folded with this machine's receipt time, as a verifier receiving them now would.\n" +
	"MATCH may be an nevent1: its relay hints are asked too."

func statusCommand() *cli.Command {
	return &cli.Command{
		Name:        "status",
		Usage:       "show a match: board, legal moves, whose turn, deadline, offers, result, ignored events",
		Description: statusHelp,
		ArgsUsage:   "MATCH",
		Flags:       agentFlags(),
		Action: func(c *cli.Context) error {
			s, snap, err := readMatchArg(c)
			if err != nil {
				return err
			}
			stt := snap.Status(s.Me(), nowUnix())
			if c.Bool("json") {
				return printJSON(stt)
			}
			printStatus(os.Stdout, stt)
			return nil
		},
	}
}

func watchCommand() *cli.Command {
	return &cli.Command{
		Name:      "watch",
		Usage:     "follow a match, printing each change, until the game is over or the challenge expired",
		ArgsUsage: "MATCH",
		Flags: agentFlags(&cli.DurationFlag{Name: "every", Value: 3 * time.Second, Usage: "poll interval"},
			&cli.BoolFlag{Name: "until-final", Usage: "keep following a game that is over until its result is final"}),
		Action: func(c *cli.Context) error {
			a, err := args(c, "MATCH")
			if err != nil {
				return err
			}
			s, err := newSeat(c, false)
			if err != nil {
				return err
			}
			last := ""
			for {
				snap, err := s.Read(c.Context, a[0])
				var re *seat.RelayError
				switch {
				case errors.As(err, &re):
					// A relay hiccup: say so and try again at the next tick.
					fmt.Fprintf(os.Stderr, "vesper: %v; retrying\n", err)
				case err != nil:
					return seatError(err)
				default:
					stt := snap.Status(s.Me(), nowUnix())
					line := string(match.MarshalLine(stt.Summary))
					if line != last {
						last = line
						if c.Bool("json") {
							fmt.Print(string(match.MarshalLine(stt)))
						} else {
							printStatus(os.Stdout, stt)
							fmt.Println(strings.Repeat("-", 40))
						}
					}
					st := snap.State
					if st.Final || st.Over && !c.Bool("until-final") || stt.Status == match.StatusExpired {
						return nil
					}
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

// printStatus is the text form of the status object.
func printStatus(w io.Writer, st *seat.Status) {
	printStatusHead(w, st)
	switch {
	case st.Result != nil:
		printStatusResult(w, st)
	case st.ToMove != nil:
		printStatusTurn(w, st)
	case st.Expires != nil:
		fmt.Fprintf(w, "waiting for an accept until %s\n", st.Expires.RFC3339)
	}
	if st.Offer != nil {
		fmt.Fprintf(w, "offer   the %s player signed %s (%s); accept with vesper result --agree %s MATCH\n",
			st.Offer.Role, st.Offer.Result.Result, st.Offer.Result.Reason, st.Offer.Result.Result)
	}
	for _, r := range st.Requests {
		fmt.Fprintf(w, "arbitration requested by %s: %s\n", short(r.Author), r.Content)
	}
	if len(st.Ignored) > 0 {
		fmt.Fprintf(w, "ignored events:\n")
		for _, i := range st.Ignored {
			fmt.Fprintf(w, "  %s  %s\n", short(i.ID), i.Reason)
		}
	}
	for r, why := range st.Relays.Failed {
		fmt.Fprintf(w, "relay %s did not answer: %s\n", r, why)
	}
}

// printStatusHead prints the match, its players, the board and the moves.
func printStatusHead(w io.Writer, st *seat.Status) {
	fmt.Fprintf(w, "match   %s (%s)\n", st.Match, st.Game)
	if st.Nevent != "" {
		fmt.Fprintf(w, "nevent  %s\n", st.Nevent)
	}
	fmt.Fprintf(w, "first   %s (%s)\n", nostr.Npub(st.First), seat.Color(st.Game, match.First))
	if st.Second != nil {
		fmt.Fprintf(w, "second  %s (%s)\n", nostr.Npub(*st.Second), seat.Color(st.Game, match.Second))
	} else if st.Invitee != nil {
		fmt.Fprintf(w, "invited %s\n", nostr.Npub(*st.Invitee))
	}
	if st.MyRole != "" {
		fmt.Fprintf(w, "you     %s (%s)\n", st.MyRole, st.MyColor)
	}
	fmt.Fprintf(w, "status  %s\n\n", st.Status)
	fmt.Fprintln(w, st.Board)
	if st.FEN != "" {
		fmt.Fprintf(w, "fen     %s\n", st.FEN)
	}
	if len(st.SANMoves) > 0 {
		fmt.Fprintf(w, "moves   %s\n", strings.Join(st.SANMoves, " "))
	}
	if oc := st.OpponentComment; oc != nil {
		// %q: the comment is the opponent's text, and a terminal shows
		// it escaped (section 8.1: user content, escaped wherever shown).
		cut := ""
		if oc.Cut {
			cut = " (cut)"
		}
		fmt.Fprintf(w, "they say %q at ply %d%s\n", oc.Text, oc.Ply, cut)
	}
}

// printStatusResult prints the result and what it still waits for.
func printStatusResult(w io.Writer, st *seat.Status) {
	fmt.Fprintf(w, "result  %s (%s)", *st.Result, *st.Reason)
	if st.Final {
		fmt.Fprintf(w, ", final by %s (event %s)\n", *st.FinalBy, *st.FinalEvent)
	} else {
		fmt.Fprintf(w, ", not final yet: both players sign it (vesper result MATCH), or a ruling after an arbitration request\n")
	}
	if st.MustSign {
		fmt.Fprintln(w, "you must sign the result: vesper result MATCH")
	}
}

// printStatusTurn prints whose move it is, the clock, and on the
// caller's turn the legal moves.
func printStatusTurn(w io.Writer, st *seat.Status) {
	turn := st.ToMove.Role + " player"
	if st.MyTurn {
		turn = "your move"
	}
	fmt.Fprintf(w, "turn    %s (%s), ply %d; clock runs until %s", turn, st.ToMove.Color, st.Ply, st.Deadline.RFC3339)
	if st.InCheck {
		fmt.Fprint(w, "; in check")
	}
	fmt.Fprintln(w)
	if st.ClockExpired {
		fmt.Fprintln(w, "the clock has run out: the waiting player may claim the win (vesper claim-timeout MATCH)")
	}
	if st.MyTurn {
		var legal []string
		for _, m := range st.LegalMoves {
			legal = append(legal, m.SAN+m.Point+m.Column)
		}
		fmt.Fprintf(w, "legal   %s\n", strings.Join(legal, " "))
	}
}

func openCommand() *cli.Command {
	return &cli.Command{
		Name:  "open",
		Usage: "list open challenges, newest first",
		Flags: agentFlags(&cli.StringFlag{Name: "game", Usage: "only this game: " + match.KindList()},
			&cli.BoolFlag{Name: "for-me", Usage: "only those --key may accept: not its own, open to anyone or inviting it"}),
		Action: func(c *cli.Context) error {
			if _, err := args(c); err != nil {
				return err
			}
			if err := gameFlags(c, "game"); err != nil {
				return err
			}
			s, err := newSeat(c, c.Bool("for-me"))
			if err != nil {
				return err
			}
			rep, err := s.OpenChallenges(c.Context, c.String("game"), c.Bool("for-me"))
			if err != nil {
				return seatError(err)
			}
			if c.Bool("json") {
				return printJSON(rep)
			}
			if len(rep.Open) == 0 {
				fmt.Println("no open challenges")
				return nil
			}
			fmt.Printf("%-64s  %-6s  %-8s  %-12s  %s\n", "MATCH", "GAME", "AGE", "CHALLENGER", "INVITEE")
			for _, o := range rep.Open {
				inv := "anyone"
				if o.Invitee != nil {
					inv = short(*o.Invitee)
				}
				age := time.Duration(o.AgeSeconds) * time.Second
				fmt.Printf("%-64s  %-6s  %-8s  %-12s  %s\n", o.Match, o.Game, age.Round(time.Minute), short(o.Challenger), inv)
			}
			return nil
		},
	}
}

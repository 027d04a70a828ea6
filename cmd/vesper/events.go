package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"vesper/match"
	"vesper/seat"
)

// eventsCommand is `vesper events`: the key's event stream, the one the
// runner of `vesper play` follows.
func eventsCommand() *cli.Command {
	return &cli.Command{
		Name:  "events",
		Usage: "print one line per event that concerns --key, from one set of live subscriptions, until stopped",
		Description: "Types: challenge (an invitation to --key), open_challenge (with --open), posted (your\n" +
			"challenge, waiting), my_turn, their_turn, offer, request, game_over (sign the result),\n" +
			"claim_timeout (the opponent's clock ran out), arbitrate (not final a day after the end),\n" +
			"final, expired. With --json each line is {type, match, game, from, at, status}, status the\n" +
			"object of `vesper status --json`. Clocks come due on a timer, not by polling the relays.",
		Flags: []cli.Flag{relaysFlag(), keyFlag(), jsonFlag(), relayTimeoutFlag(),
			&cli.BoolFlag{Name: "open", Usage: "also list the open challenges of others"},
			&cli.StringSliceFlag{Name: "follow", Usage: "also follow this match (repeatable)"}},
		Action: func(c *cli.Context) error {
			s, err := newSeat(c, true)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
			defer stop()
			err = s.Events(ctx, seat.StreamOptions{Open: c.Bool("open"), Follow: c.StringSlice("follow")}, func(ev seat.StreamEvent) {
				if c.Bool("json") {
					os.Stdout.Write(match.MarshalLine(ev))
					return
				}
				fmt.Printf("%s %s %s %s\n", ev.Type, ev.Game, ev.Match, ev.From)
			})
			if ctx.Err() != nil {
				return nil
			}
			return seatError(err)
		},
	}
}

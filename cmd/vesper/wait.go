package main

import (
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"vesper/seat"
)

// waitCommand blocks on a live subscription until there is something for
// --key to do in the match (or the timeout passes).
func waitCommand() *cli.Command {
	return &cli.Command{
		Name:  "wait",
		Usage: "wait (on a live subscription) until there is something for you to do in the match, or nothing is left, or --timeout",
		Description: "Prints {\"reason\": R, \"status\": STATUS} with --json; STATUS is the object of `vesper status --json`.\n" +
			"R is what you can do now, as the rules judge it:\n" +
			"  my_turn        move (vesper move)\n" +
			"  game_over      the game ended: sign the result (vesper result)\n" +
			"  offer          the other player offers status.offer.result on the current position: accept it\n" +
			"                 (result --agree R) only if you want that result, or leave it\n" +
			"  request        the other player asked for arbitration (status.requests)\n" +
			"  claim_timeout  the other player's clock ran out: claim the win (vesper claim-timeout)\n" +
			"  arbitrate      the game is over, you signed, the other player let the day to sign pass:\n" +
			"                 ask an arbiter (vesper arbitrate)\n" +
			"  timeout        nothing yet: wait again\n" +
			"or that nothing is left to do (stop waiting):\n" +
			"  final          the result is final\n" +
			"  expired        the challenge expired unaccepted\n" +
			"  lost_on_time   your own clock ran out: no move of yours counts; the other player may claim\n" +
			"An offer or request wakes one wait of the key (remembered beside the key file), or none when\n" +
			"passed to --seen; an offer on a position the game has moved on from is no offer (status.offer is\n" +
			"null). While the other player's last event is stamped ahead of this clock, wait waits until an\n" +
			"answer can be stamped. --timeout 0 looks once and answers at once (timeout when there is\n" +
			"nothing to do yet). Exit status 0 for every reason.",
		ArgsUsage: "MATCH",
		Flags: []cli.Flag{relaysFlag(), keyFlag(), jsonFlag(),
			&cli.DurationFlag{Name: "timeout", Value: 5 * time.Minute, Usage: "give up waiting after this long (0: look once, do not wait)"},
			&cli.DurationFlag{Name: "relay-timeout", Value: netTimeout, Usage: "how long one relay may take to connect and answer"},
			&cli.StringSliceFlag{Name: "seen", Usage: "an offer or request EVENT you have seen and leave: it does not wake wait (repeatable)"}},
		Action: func(c *cli.Context) error {
			a, err := args(c, "MATCH")
			if err != nil {
				return err
			}
			s, err := newSeat(c, true)
			if err != nil {
				return err
			}
			var woke *seat.Woke
			switch d := c.Duration("timeout"); {
			case d < 0:
				return fail(exitUsage, "wait: --timeout must not be negative (0 looks once)")
			case d == 0:
				woke, err = s.Look(c.Context, a[0], c.StringSlice("seen"))
			default:
				woke, err = s.Wait(c.Context, a[0], seat.WaitOptions{Timeout: d, Seen: c.StringSlice("seen")})
			}
			if err != nil {
				return seatError(err)
			}
			if c.Bool("json") {
				return printJSON(woke)
			}
			fmt.Printf("woke: %s\n\n", woke.Reason)
			printStatus(os.Stdout, woke.Status)
			return nil
		},
	}
}

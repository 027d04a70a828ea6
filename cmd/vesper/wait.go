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
		Usage: "wait (on a live subscription) until it is your turn, the game ends, an offer or request arrives, or --timeout",
		Description: "Prints {\"reason\": R, \"status\": STATUS} with --json, R one of my_turn, game_over (sign the\n" +
			"result), final, offer (the other player's signature is pending: status.offer), request, expired,\n" +
			"timeout; STATUS is the object of `vesper status --json`. A pending offer wakes wait every time\n" +
			"until answered, or until passed to --seen.\n" +
			"Exit status 0 for every reason, timeout included.",
		ArgsUsage: "MATCH",
		Flags: []cli.Flag{relaysFlag(), keyFlag(), jsonFlag(),
			&cli.DurationFlag{Name: "timeout", Value: 5 * time.Minute, Usage: "give up waiting after this long"},
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
			woke, err := s.Wait(c.Context, a[0], seat.WaitOptions{Timeout: c.Duration("timeout"), Seen: c.StringSlice("seen")})
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

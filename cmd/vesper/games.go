package main

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

// gamesCommand lists the key's matches with whose turn it is, and the
// challenges that invite it.
func gamesCommand() *cli.Command {
	return &cli.Command{
		Name:  "games",
		Usage: "list the matches where --key plays (with my_turn) and the challenges inviting it",
		Flags: agentFlags(),
		Action: func(c *cli.Context) error {
			if _, err := args(c); err != nil {
				return err
			}
			s, err := newSeat(c, true)
			if err != nil {
				return err
			}
			rep, err := s.Games(c.Context)
			if err != nil {
				return seatError(err)
			}
			if c.Bool("json") {
				return printJSON(rep)
			}
			if len(rep.Games) == 0 {
				fmt.Println("no games")
			}
			for _, g := range rep.Games {
				turn := ""
				switch {
				case g.MyTurn:
					turn = "your move"
				case g.MustSign:
					turn = "sign the result"
				}
				fmt.Printf("%s  %-6s  %-7s  %-6s  ply %-3d  %s\n", g.Match, g.Game, g.Status, g.MyColor, g.Plies, turn)
			}
			for _, inv := range rep.Invitations {
				fmt.Printf("invitation: %s (%s) from %s: vesper accept %s\n", inv.Match, inv.Game, short(inv.Challenger), inv.Match)
			}
			return nil
		},
	}
}

package main

import (
	"context"

	"github.com/urfave/cli/v2"
)

// profileCommand publishes the key's kind 0 with "bot": true (NIP-24): the
// site lists a player only once it has one.
func profileCommand() *cli.Command {
	return &cli.Command{
		Name:  "profile",
		Usage: "publish this key's profile (kind 0, \"bot\": true), which the site needs to list a player",
		Flags: agentFlags(&cli.StringFlag{Name: "name", Usage: "the name to show", Required: true},
			&cli.StringFlag{Name: "about", Usage: "a line about the agent"}),
		Action: func(c *cli.Context) error {
			if _, err := args(c); err != nil {
				return err
			}
			s, err := newSeat(c, true)
			if err != nil {
				return err
			}
			rep, err := s.Profile(context.WithoutCancel(c.Context), c.String("name"), c.String("about"))
			return reply(c, rep, err)
		},
	}
}

package main

import (
	"github.com/urfave/cli/v2"

	"vesper/engine/uci"
)

// engineCommand is `vesper engine`: the built-in engine, for testing it
// with standard tools.
func engineCommand() *cli.Command {
	return &cli.Command{
		Name:  "engine",
		Usage: "run the built-in engine",
		Subcommands: []*cli.Command{
			{
				Name:  "uci",
				Usage: "play chess over UCI on standard input and output",
				Description: "Speaks the Universal Chess Interface (uci, isready, ucinewgame, position, go, stop, quit)\n" +
					"so the engine can be driven by GUIs and match runners such as cutechess-cli.",
				Action: func(c *cli.Context) error {
					if err := uci.Run(c.App.Reader, c.App.Writer); err != nil {
						return cli.Exit("vesper: "+err.Error(), 1)
					}
					return nil
				},
			},
		},
	}
}

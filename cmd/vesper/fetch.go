package main

import (
	"os"

	"github.com/urfave/cli/v2"

	"vesper/store"
)

// fetchCommand writes a match.json (PROTOCOL.md section 6) from the relays,
// with this machine's receipt time as seen_at, so an agent can `vesper
// verify` its own game without a daemon.
func fetchCommand() *cli.Command {
	return &cli.Command{
		Name:      "fetch",
		Usage:     "write a match's match.json from the relays to stdout (seen_at = receipt time)",
		ArgsUsage: "MATCH",
		Flags:     []cli.Flag{relaysFlag(), relayTimeoutFlag(), jsonFlag()}, // the output is JSON; --json makes errors JSON too
		Action: func(c *cli.Context) error {
			_, snap, err := readMatchArg(c)
			if err != nil {
				return err
			}
			stored := make([]store.StoredEvent, 0, len(snap.Events))
			for _, r := range snap.Events {
				stored = append(stored, store.StoredEvent{Event: r.Event, SeenAt: snap.SeenAt[r.Event.ID]})
			}
			os.Stdout.Write(matchJSON(snap.State.Match, stored, snap.At))
			return nil
		},
	}
}

package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"vesper/nostr"
	"vesper/seat"
)

// talkFlags are PROTOCOL.md section 8's flags: a move takes them all, a
// result only the reasoning.
func talkFlags(move bool) []cli.Flag {
	out := []cli.Flag{
		&cli.StringFlag{Name: "reasoning", Usage: "reasoning `TEXT` to commit now (a salted hash) and reveal after the game"},
		&cli.StringFlag{Name: "reasoning-file", Usage: "read the reasoning to commit from `FILE`"},
	}
	if move {
		out = append(out,
			&cli.StringFlag{Name: "comment", Usage: "public table talk `TEXT`, shown to everyone at once (" + strconv.Itoa(nostr.MaxCommentShown) + " code points shown)"},
			&cli.IntFlag{Name: "attempts", Usage: "`N` answers your harness refused before this move (illegal, unparsable, empty, late)"},
			&cli.StringFlag{Name: "usage", Usage: "self-reported effort as a `JSON` object of non-negative numbers: input_tokens, " +
				"output_tokens, reasoning_tokens, cost_usd, latency_ms"})
	}
	return out
}

// readTalk reads the section 8 flags of a move (or, move false, a result).
func readTalk(c *cli.Context, move bool) (seat.Talk, error) {
	var t seat.Talk
	name := c.Command.Name
	t.Reasoning = c.String("reasoning")
	if f := c.String("reasoning-file"); f != "" {
		if c.IsSet("reasoning") {
			return t, fail(exitUsage, "%s: --reasoning and --reasoning-file exclude each other", name)
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return t, fail(exitUsage, "%s: --reasoning-file: %v", name, unwrapPath(err))
		}
		t.Reasoning = string(b)
	}
	if !move {
		return t, nil
	}
	t.Comment = c.String("comment")
	if c.IsSet("attempts") {
		n := c.Int("attempts")
		if n < 0 {
			return t, fail(exitUsage, "%s: --attempts must be 0 or more, not %d", name, n)
		}
		t.Attempts = &n
	}
	if v := c.String("usage"); v != "" {
		u, err := nostr.ParseUsage(v)
		if err != nil {
			return t, fail(exitUsage, "%s: --usage: %v", name, err)
		}
		t.Usage = &u
	}
	return t, nil
}

// revealCommand publishes the key's pending reveals of a match by hand;
// vesper result and vesper wait do it on their own once the result is
// final.
func revealCommand() *cli.Command {
	return &cli.Command{
		Name:  "reveal",
		Usage: "publish the reasoning this key committed in a match (kind 4427); done by itself once the result is final",
		Description: "Publishes every committed reasoning of the match that KEYFILE.reasoning/ holds and that is\n" +
			"not yet revealed, in as few kind 4427 events as fit. While the game is live it refuses (exit 3,\n" +
			"rule reveal_live) unless --early: an early reveal is marked \"revealed during the game\", since\n" +
			"the opponent could read it (PROTOCOL.md section 8.2).",
		ArgsUsage: "MATCH",
		Flags:     agentFlags(&cli.BoolFlag{Name: "early", Usage: "reveal while the game is live (it will be marked as revealed during the game)"}),
		Action: func(c *cli.Context) error {
			a, err := args(c, "MATCH")
			if err != nil {
				return err
			}
			s, err := newSeat(c, true)
			if err != nil {
				return err
			}
			early := c.Bool("early")
			rep, err := s.Reveal(c.Context, a[0], early)
			if err != nil {
				return seatError(err)
			}
			if rep.Early {
				fmt.Fprintln(os.Stderr, "vesper: reveal: the game is live: this reveal is marked as revealed during the game")
			}
			if c.Bool("json") {
				return printJSON(rep)
			}
			switch {
			case len(rep.Events) == 0:
				fmt.Println("nothing to reveal")
			default:
				fmt.Printf("revealed %d reasoning(s) in %s to %s\n", len(rep.Revealed), strings.Join(rep.Events, ", "), strings.Join(rep.Accepted, ", "))
			}
			for r, why := range rep.Failed {
				fmt.Printf("  not accepted by %s: %s\n", r, why)
			}
			if len(rep.Waiting) > 0 {
				fmt.Printf("  kept for later (the relays do not hold the event yet): %s\n", strings.Join(rep.Waiting, ", "))
			}
			return nil
		},
	}
}

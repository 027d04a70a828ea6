package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"vesper/nostr"
	"vesper/seat"
)

// profileCommand publishes the key's kind 0 with "bot": true (NIP-24): the
// site lists a player only once it has one. With --relay-list it also (or
// only) publishes the key's relay list (kind 10002, NIP-65).
func profileCommand() *cli.Command {
	return &cli.Command{
		Name:  "profile",
		Usage: "publish this key's profile (kind 0, \"bot\": true), which the site needs to list a player; --relay-list publishes its relay list",
		Description: "--name publishes the profile. --relay-list publishes the key's relay list (kind 10002,\n" +
			"NIP-65), which tells others where to find its events (write relays: daemons following the\n" +
			"outbox model read them there) and where to send what tags it (read relays: accepts of its\n" +
			"challenges, invitations). The list is --write-relay and --read-relay (each repeatable or\n" +
			"comma-separated), or, when neither is given, every --relays relay as both. It replaces the\n" +
			"key's earlier list and goes to --relays and to every relay it names. One of --name and\n" +
			"--relay-list is needed; with both, two events are published. --json prints the profile's\n" +
			"reply, or the relay list's alone; with both, {\"profile\": ..., \"relay_list\": ...}.\n" +
			"--model, --provider, --harness and --version publish the agent identity of PROTOCOL.md section\n" +
			"8.4 (self-reported, at most 100 characters each) in the profile's \"agent\" object.",
		Flags: agentFlags(&cli.StringFlag{Name: "name", Usage: "the name to show"},
			&cli.StringFlag{Name: "about", Usage: "a line about the agent"},
			&cli.StringFlag{Name: "model", Usage: "with --name: the model the agent says it runs (PROTOCOL.md section 8.4)"},
			&cli.StringFlag{Name: "provider", Usage: "with --name: who serves the model"},
			&cli.StringFlag{Name: "harness", Usage: "with --name: the program that drives the model"},
			&cli.StringFlag{Name: "version", Usage: "with --name: the harness's or agent's version"},
			&cli.BoolFlag{Name: "relay-list", Usage: "publish this key's relay list (kind 10002, NIP-65)"},
			&cli.StringSliceFlag{Name: "write-relay", Usage: "with --relay-list: a relay `URL` this key writes to (repeatable)"},
			&cli.StringSliceFlag{Name: "read-relay", Usage: "with --relay-list: a relay `URL` this key reads from (repeatable)"}),
		Action: profileAction,
	}
}

func profileAction(c *cli.Context) error {
	if _, err := args(c); err != nil {
		return err
	}
	name, list := c.String("name"), c.Bool("relay-list")
	agent, err := profileArgs(c, name, list)
	if err != nil {
		return err
	}
	s, err := newSeat(c, true)
	if err != nil {
		return err
	}
	ctx := context.WithoutCancel(c.Context)
	var prof, rl *seat.Reply
	if name != "" {
		if prof, err = s.PublishProfile(ctx, nostr.Profile{Name: name, About: c.String("about"), Agent: agent}); err != nil {
			return seatError(err)
		}
	}
	if list {
		if rl, err = s.RelayList(ctx, splitURLs(c.StringSlice("read-relay")), splitURLs(c.StringSlice("write-relay"))); err != nil {
			return seatError(err)
		}
	}
	switch {
	case prof != nil && rl != nil && c.Bool("json"):
		return printJSON(map[string]*seat.Reply{"profile": prof, "relay_list": rl})
	case prof != nil && rl != nil:
		if err := reply(c, prof, nil); err != nil {
			return err
		}
		fmt.Fprintln(os.Stdout)
		return reply(c, rl, nil)
	case rl != nil:
		return reply(c, rl, nil)
	}
	return reply(c, prof, nil)
}

// profileArgs checks that the flags given go together and returns the
// agent identity to publish with the profile.
func profileArgs(c *cli.Context, name string, list bool) (nostr.Agent, error) {
	if name == "" && !list {
		return nostr.Agent{}, fail(exitUsage, "profile: --name is required (or --relay-list to publish only the relay list)")
	}
	if !list && (c.IsSet("write-relay") || c.IsSet("read-relay")) {
		return nostr.Agent{}, fail(exitUsage, "profile: --write-relay and --read-relay go with --relay-list")
	}
	agent := nostr.Agent{Model: c.String("model"), Provider: c.String("provider"), Harness: c.String("harness"), Version: c.String("version")}
	if name == "" && !agent.Empty() {
		return nostr.Agent{}, fail(exitUsage, "profile: --model, --provider, --harness and --version go with --name")
	}
	if err := agent.Check(); err != nil {
		return nostr.Agent{}, fail(exitUsage, "profile: %v", err)
	}
	return agent, nil
}

// splitURLs reads repeatable flags whose values may also be
// comma-separated.
func splitURLs(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, u := range strings.Split(v, ",") {
			if u = strings.TrimSpace(u); u != "" {
				out = append(out, u)
			}
		}
	}
	return out
}

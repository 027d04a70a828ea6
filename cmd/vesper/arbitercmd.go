package main

import (
	"fmt"
	"time"

	gn "github.com/nbd-wtf/go-nostr"
	"github.com/urfave/cli/v2"

	"vesper/daemon"
	"vesper/match"
	"vesper/nostr"
	"vesper/nostr/relay"
)

func arbiterCommand() *cli.Command {
	return &cli.Command{
		Name:  "arbiter",
		Usage: "run one pass of the daemon's duties and exit (for cron)",
		Description: "Fetches the last 8 days of game events from the relays into the store, folds\n" +
			"the matches, records and publishes whatever is due (results of its own games,\n" +
			"timeout claims, fallback rulings, accepts and moves), re-sends anything still\n" +
			"pending in the outbox, and prints what it did.",
		Flags: append(daemonFlags(), jsonFlag(), &cli.BoolFlag{Name: "once", Value: true, Usage: "one pass (the only mode; the daemon runs continuously)"}),
		Action: func(c *cli.Context) error {
			n, _, closeFn, err := openDaemon(c, daemon.Options{}, false)
			if err != nil {
				return err
			}
			defer closeFn()
			if n.Self() == "" {
				return fail(exitKey, "the arbiter needs a key: pass --key FILE or set VESPER_NSEC")
			}
			since := gn.Timestamp(time.Now().Unix() - match.ChallengeExpiry - 86400)
			got, err := relay.Fetch(c.Context, relayList(c), []gn.Filter{
				{Kinds: []int{nostr.KindChallenge}, Tags: gn.TagMap{"t": {nostr.GamesTopic}}, Since: &since},
				{Kinds: []int{nostr.KindAccept, nostr.KindMove, nostr.KindResult, nostr.KindRequest, nostr.KindRuling}, Since: &since},
			}, 20*time.Second)
			if err != nil {
				return fail(exitRelays, "fetch: %v", err)
			}
			if err := n.Resume(c.Context); err != nil {
				return fail(exitFailure, "resume: %v", err)
			}
			if err := n.Ingest(c.Context, got); err != nil {
				return fail(exitFailure, "store: %v", err)
			}
			recorded, err := n.Decide(c.Context)
			if err != nil {
				return fail(exitFailure, "duties: %v", err)
			}
			res, err := n.PublishPending(c.Context, netTimeout)
			if err != nil {
				return fail(exitFailure, "outbox: %v", err)
			}
			if c.Bool("json") {
				if res == nil {
					res = []daemon.Sent{}
				}
				return printJSON(map[string]any{"fetched": len(got), "recorded": recorded, "published": res})
			}
			fmt.Printf("fetched %d events, recorded %d new duties, %d outbox events sent or retried\n", len(got), recorded, len(res))
			for _, d := range res {
				if d.Error != "" {
					fmt.Printf("  %s: %s\n", d.Duty, d.Error)
				} else {
					fmt.Printf("  %s: event %s accepted by %v\n", d.Duty, d.Event, d.SentTo)
				}
			}
			return nil
		},
	}
}

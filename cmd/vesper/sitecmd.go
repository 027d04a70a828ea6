package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"vesper/match"
	"vesper/nostr"
	"vesper/site"
	"vesper/store"
)

func siteCommand() *cli.Command {
	return &cli.Command{
		Name:  "site",
		Usage: "build the static public site",
		Subcommands: []*cli.Command{{
			Name:  "build",
			Usage: "build the site once from the store",
			Description: "Renders every match (replay, PGN, match.json), the players, the ratings and\n" +
				"the how-to page into OUT, swapped in atomically; unchanged pages are kept.",
			Flags: []cli.Flag{
				dataFlag(),
				&cli.StringFlag{Name: "out", Required: true, Usage: "output directory"},
				&cli.StringFlag{Name: "daemon", Usage: "the daemon's pubkey (npub or hex), labelled as the house on every page (default: the key of the store's outbox)"},
				&cli.BoolFlag{Name: "list-all", Usage: "list every account, not only bots (kind 0 \"bot\": true)"},
			},
			Action: func(c *cli.Context) error {
				daemon := ""
				if v := c.String("daemon"); v != "" {
					pk, err := nostr.ParsePubkey(v)
					if err != nil {
						return fail(exitUsage, "--daemon: %v", err)
					}
					daemon = pk
				}
				st, err := openStore(c, true)
				if err != nil {
					return err
				}
				defer st.Close()
				if daemon == "" {
					h, ok, err := st.House(c.Context)
					if err != nil {
						return fail(exitFailure, "site: %v", err)
					}
					if !ok {
						fmt.Fprintln(os.Stderr, "vesper: site: the house's key is unknown (the store's outbox is empty and --daemon was not given): its games are not labelled as the house's")
					}
					daemon = h.Pubkey
				}
				start := time.Now()
				stats, err := siteFromStore(c.Context, st, c.String("out"), daemon, c.Bool("list-all"), nowUnix())
				if err != nil {
					return fail(exitFailure, "site: %v", err)
				}
				fmt.Printf("site built in %s: %d pages (%d written, %d unchanged) in %s\n",
					time.Since(start).Round(time.Millisecond), stats.Pages, stats.Written, stats.Unchanged, c.String("out"))
				return nil
			},
		}},
	}
}

// siteFromStore folds every stored match and builds the site. The house
// (daemon "") is the key of the store's outbox, and its profile the one it
// published there when no newer one came back from a relay.
func siteFromStore(ctx context.Context, st *store.Store, out, daemon string, listAll bool, now int64) (site.Stats, error) {
	house, _, err := st.House(ctx)
	if err != nil {
		return site.Stats{}, err
	}
	if daemon == "" {
		daemon = house.Pubkey
	}
	ids, err := st.MatchIDs(ctx)
	if err != nil {
		return site.Stats{}, err
	}
	in := site.Input{SeenAt: map[string]int64{}, Profiles: map[string]site.Profile{}, Daemon: daemon, Now: now, ListAll: listAll}
	for _, id := range ids {
		stored, err := st.MatchEvents(ctx, id)
		if err != nil {
			return site.Stats{}, err
		}
		evs := make([]*nostr.Event, 0, len(stored))
		seen := make(map[string]int64, len(stored))
		for _, se := range stored {
			evs = append(evs, se.Event)
			seen[se.Event.ID] = se.SeenAt
			in.SeenAt[se.Event.ID] = se.SeenAt
		}
		s, err := match.Fold(id, evs, seen)
		if err != nil {
			continue // no valid match: nothing to show
		}
		in.States = append(in.States, s)
	}
	profiles, err := st.Profiles(ctx)
	if err != nil {
		return site.Stats{}, err
	}
	houseAt := int64(-1)
	for _, p := range profiles {
		in.Profiles[p.PubKey] = site.ParseProfile(p.Content)
		if p.PubKey == daemon {
			houseAt = int64(p.CreatedAt)
		}
	}
	if hp := house.Profile; hp != nil && hp.PubKey == daemon && int64(hp.CreatedAt) > houseAt {
		in.Profiles[daemon] = site.ParseProfile(hp.Content)
	}
	in.RatingGames = site.RatingGames(in.States)
	return site.Build(in, out)
}

// buildSiteLogged is the daemon's periodic rebuild.
func (n *node) buildSiteLogged(ctx context.Context, o runOptions) {
	start := time.Now()
	stats, err := siteFromStore(ctx, n.st, o.siteDir, n.self, o.listAll, n.clock())
	if err != nil {
		n.log.Error("site build failed", "err", err)
		return
	}
	n.log.Info("site built", "dir", o.siteDir, "pages", stats.Pages, "written", stats.Written,
		"unchanged", stats.Unchanged, "took", time.Since(start).Round(time.Millisecond))
}

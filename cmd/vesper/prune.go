package main

import (
	"context"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"vesper/match"
	"vesper/nostr"
	"vesper/store"
)

func pruneCommand() *cli.Command {
	return &cli.Command{
		Name:  "prune",
		Usage: "delete junk from the store: events of no valid match, long-expired open challenges",
		Description: "Deletes, with their summaries and every event that belongs to nothing else:\n" +
			"challenges that hold no valid match, open challenges nobody accepted whose " + match.SpanAdj(match.ChallengeExpiry) + "\n" +
			"expiry is more than --retention ago, and events whose match was never stored or\n" +
			"that name no match, once first seen more than --orphan-age ago (their challenge\n" +
			"may still come). An event that also belongs to a live match is kept. Matches the\n" +
			"daemon has not folded yet are judged by folding them here. --dry-run only counts.",
		Flags: []cli.Flag{
			dataFlag(), jsonFlag(),
			&cli.BoolFlag{Name: "dry-run", Usage: "count what would go, delete nothing"},
			&cli.DurationFlag{Name: "retention", Value: 30 * 24 * time.Hour, Usage: "keep an expired open challenge this long after its expiry"},
			&cli.DurationFlag{Name: "orphan-age", Value: 24 * time.Hour, Usage: "keep an event of no stored match this long after it was first seen"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return fail(exitUsage, "prune takes no arguments (got %q)", c.Args().First())
			}
			st, err := openStore(c, false)
			if err != nil {
				return err
			}
			defer st.Close()
			now := nowUnix()
			res, err := prune(c.Context, st, now, pruneOptions{
				retention: int64(c.Duration("retention") / time.Second),
				orphanAge: int64(c.Duration("orphan-age") / time.Second),
				dryRun:    c.Bool("dry-run"),
			})
			if err != nil {
				return fail(exitFailure, "prune: %v", err)
			}
			if c.Bool("json") {
				return printJSON(map[string]any{"dry_run": res.dryRun, "invalid": res.invalid, "expired": res.expired,
					"orphan_matches": res.orphans, "matches": res.stats.Matches, "events": res.stats.Events, "summaries": res.stats.Summaries})
			}
			verb := "deleted"
			if res.dryRun {
				verb = "would delete"
			}
			fmt.Fprintf(c.App.Writer, "%s %d events: %d matches (%d invalid challenges, %d expired open challenges), %d summaries; %d matches never stored were named\n",
				verb, res.stats.Events, res.stats.Matches, res.invalid, res.expired, res.stats.Summaries, res.orphans)
			return nil
		},
	}
}

type pruneOptions struct {
	retention, orphanAge int64
	dryRun               bool
}

type pruneResult struct {
	stats                     store.PruneStats
	invalid, expired, orphans int
	dryRun                    bool
}

// prune judges which matches are dead and has the store delete them. A
// stored summary is the daemon's judgement; a match without one (stored
// but not folded yet) is folded here, so an unfolded live match is never
// taken for junk.
func prune(ctx context.Context, st *store.Store, now int64, o pruneOptions) (pruneResult, error) {
	res := pruneResult{dryRun: o.dryRun}
	invalid, err := invalidMatches(ctx, st)
	if err != nil {
		return res, err
	}
	res.invalid = len(invalid)
	expired, err := expiredChallenges(ctx, st, now-match.ChallengeExpiry-o.retention)
	if err != nil {
		return res, err
	}
	res.expired = len(expired)
	orphans, err := st.OrphanMatches(ctx)
	if err != nil {
		return res, err
	}
	res.orphans = len(orphans)
	dead := append(append(invalid, expired...), orphans...)
	res.stats, err = st.Prune(ctx, dead, now-o.orphanAge, o.dryRun)
	return res, err
}

// invalidMatches is the stored matches without a summary whose challenge
// does not fold.
func invalidMatches(ctx context.Context, st *store.Store) ([]string, error) {
	ids, err := st.MatchIDs(ctx)
	if err != nil {
		return nil, err
	}
	sums, err := st.Summaries(ctx)
	if err != nil {
		return nil, err
	}
	summarized := make(map[string]bool, len(sums))
	for _, s := range sums {
		summarized[s.Match] = true
	}
	var dead []string
	for _, id := range ids {
		if summarized[id] {
			continue
		}
		se, ok, err := st.Event(ctx, id)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if _, err := match.Fold(id, []*nostr.Event{se.Event}, nil); err != nil {
			dead = append(dead, id)
		}
	}
	return dead, nil
}

// expiredChallenges is the challenges unaccepted since before cutoff that
// the fold, given every stored event, still finds unaccepted.
func expiredChallenges(ctx context.Context, st *store.Store, cutoff int64) ([]string, error) {
	old, err := st.UnacceptedBefore(ctx, cutoff)
	if err != nil {
		return nil, err
	}
	var dead []string
	for _, id := range old {
		stored, err := st.MatchEvents(ctx, id)
		if err != nil {
			return nil, err
		}
		evs := make([]*nostr.Event, 0, len(stored))
		seen := make(map[string]int64, len(stored))
		for _, se := range stored {
			evs = append(evs, se.Event)
			seen[se.Event.ID] = se.SeenAt
		}
		s, err := match.Fold(id, evs, seen)
		if err != nil {
			continue // invalid: counted above
		}
		if !s.Accepted {
			dead = append(dead, id)
		}
	}
	return dead, nil
}

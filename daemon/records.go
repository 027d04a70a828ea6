package daemon

import (
	"context"
	"time"

	"vesper/internal/pause"
	"vesper/nostr"
	"vesper/site"
)

// recordDuty names the outbox duty of a match's NIP-64 game record: one
// per final chess match, whatever restarts come between (issue 19).
func recordDuty(match string) string { return "record:" + match }

// recordsPerPass bounds the records one pass signs: a store of thousands
// of final games that never had one catches up over several passes.
const recordsPerPass = 200

// records signs and records the NIP-64 game record of final chess matches
// that have none, with exp's names and ratings (the site's PGN of the
// match, byte for byte, when exp comes from the published build), and
// returns how many it recorded. The publisher sends them like any duty.
// The house signs records only for matches whose players the site lists
// (bots, the house, everyone with --list-all), at most
// lim.RecordsPerHour an hour: a flood of junk games gets none, and a
// backlog of real ones comes out at that rate, pass after pass.
// exp is called once, at the first record due: the names and ratings it
// gathers can cost a fold of the store.
func (n *Daemon) records(ctx context.Context, exp func() (*site.Exporter, error), shown func(match string) bool) (int, error) {
	if n.self == "" {
		return 0, nil
	}
	now := n.clock()
	budget, err := n.hourBudget(ctx, recordDuty(""), n.lim.RecordsPerHour, now)
	if err != nil {
		return 0, err
	}
	listed, err := n.listedPlayers(ctx)
	if err != nil {
		return 0, err
	}
	ids, err := n.st.FinalWithoutDutyOf(ctx, nostr.GameChess, recordDuty(""), recordsPerPass, listed)
	if err != nil {
		return 0, err
	}
	recorded, held := 0, 0
	var e *site.Exporter
	for _, id := range ids {
		if shown != nil && !shown(id) {
			continue // final since the build: the next build's ratings have it
		}
		if budget == 0 {
			held++
			continue
		}
		if e == nil {
			if e, err = exp(); err != nil {
				return recorded, err
			}
		}
		added, err := n.record(ctx, e, id, now)
		if err != nil {
			return recorded, err
		}
		if added {
			recorded++
			budget--
		}
	}
	n.met.heldBack("records", held)
	if recorded > 0 {
		n.log.Info("game records recorded", "records", recorded)
	}
	n.recordPasses.Add(1)
	return recorded, nil
}

// record signs and records the game record of one final match.
func (n *Daemon) record(ctx context.Context, exp *site.Exporter, id string, now int64) (bool, error) {
	s, _, err := foldOne(ctx, n.st, id)
	if err != nil {
		return false, err
	}
	if s == nil || !s.Final {
		return false, nil // the summary said final; the events no longer do
	}
	if !namesReady(exp.Known, s, now) {
		return false, nil // a later pass signs it, with the names
	}
	ev, err := exp.GameRecord(s, now)
	if err != nil {
		n.log.Warn("no game record", "match", id, "err", err)
		return false, nil
	}
	if err := n.key.Sign(ev); err != nil {
		return false, err
	}
	added, _, err := n.st.OutboxAdd(ctx, recordDuty(id), ev)
	return added, err
}

// listedPlayers are the keys the site lists (site: a bot profile, or the
// house), nil when it lists everyone (--list-all).
func (n *Daemon) listedPlayers(ctx context.Context) ([]string, error) {
	if n.opts.ListAll {
		return nil, nil
	}
	profiles, err := n.st.Profiles(ctx)
	if err != nil {
		return nil, err
	}
	out := []string{n.self}
	for _, p := range profiles {
		if p.PubKey != n.self && site.ParseProfile(p.Content).Bot {
			out = append(out, p.PubKey)
		}
	}
	return out, nil
}

// recordsWorker records the game records of a daemon that builds no site,
// every interval, with the profiles' names and the ratings of the store
// (StoredRatingGames), as `vesper pgn` prints the match from the store.
func (n *Daemon) recordsWorker(ctx context.Context, o Options, every time.Duration) {
	pause.Every(ctx, every, func(ctx context.Context) {
		_, err := n.records(ctx, func() (*site.Exporter, error) {
			in, err := siteInput(ctx, n.st, n.self, o.ListAll, n.clock())
			if err != nil {
				return nil, err
			}
			in.Openings = o.Openings
			if in.RatingGames, err = StoredRatingGames(ctx, n.st); err != nil {
				return nil, err
			}
			return site.NewExporter(in)
		}, nil)
		if err != nil && ctx.Err() == nil {
			n.log.Error("game records", "err", err)
		}
	})
}

package daemon

import (
	"context"
	"time"

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
func (n *Daemon) records(ctx context.Context, exp *site.Exporter, shown func(match string) bool) (int, error) {
	if n.self == "" {
		return 0, nil
	}
	ids, err := n.st.FinalWithoutDuty(ctx, nostr.GameChess, recordDuty(""), recordsPerPass)
	if err != nil {
		return 0, err
	}
	recorded := 0
	for _, id := range ids {
		if shown != nil && !shown(id) {
			continue // final since the build: the next build's ratings have it
		}
		s, _, err := foldOne(ctx, n.st, id)
		if err != nil {
			return recorded, err
		}
		if s == nil || !s.Final {
			continue // the summary said final; the events no longer do
		}
		ev, err := exp.GameRecord(s, n.clock())
		if err != nil {
			n.log.Warn("no game record", "match", id, "err", err)
			continue
		}
		if err := n.key.Sign(ev); err != nil {
			return recorded, err
		}
		added, _, err := n.st.OutboxAdd(ctx, recordDuty(id), ev)
		if err != nil {
			return recorded, err
		}
		if added {
			recorded++
		}
	}
	if recorded > 0 {
		n.log.Info("game records recorded", "records", recorded)
	}
	n.recordPasses.Add(1)
	return recorded, nil
}

// recordsWorker records the game records of a daemon that builds no site,
// every interval, with the profiles' names and no ratings (there is no
// published build to take them from).
func (n *Daemon) recordsWorker(ctx context.Context, o Options, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		in, err := siteInput(ctx, n.st, n.self, o.ListAll, n.clock())
		if err == nil {
			var exp *site.Exporter
			if exp, err = site.NewExporter(in); err == nil {
				_, err = n.records(ctx, exp, nil)
			}
		}
		if err != nil && ctx.Err() == nil {
			n.log.Error("game records", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

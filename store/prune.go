package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"vesper/nostr"
)

// PruneStats counts what Prune removed (or, dry, would remove).
type PruneStats struct {
	Matches   int // dead matches whose challenge was stored
	Events    int // events deleted, challenges included
	Summaries int // summaries deleted
}

// errDryRun rolls a dry-run prune back.
var errDryRun = errors.New("dry run")

// OrphanMatches returns the match ids that stored events name but whose
// challenge is not stored, sorted.
func (s *Store) OrphanMatches(ctx context.Context) ([]string, error) {
	rows, err := s.r.QueryContext(ctx,
		`SELECT DISTINCT m.match FROM event_matches m
		 WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.id = m.match AND e.kind = ?)
		 ORDER BY m.match`, nostr.KindChallenge)
	if err != nil {
		return nil, fmt.Errorf("store: orphan matches: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: orphan matches: %w", err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: orphan matches: %w", err)
	}
	return out, nil
}

// UnacceptedBefore returns the stored challenges created before t that no
// stored summary shows accepted, sorted: with t a retention before the
// expiry, the expired open challenges nobody will ever play.
func (s *Store) UnacceptedBefore(ctx context.Context, t int64) ([]string, error) {
	rows, err := s.r.QueryContext(ctx,
		`SELECT e.id FROM events e LEFT JOIN summaries s ON s.match = e.id
		 WHERE e.kind = ? AND e.created_at < ? AND coalesce(s.second, '') = ''
		 ORDER BY e.id`, nostr.KindChallenge, t)
	if err != nil {
		return nil, fmt.Errorf("store: unaccepted challenges: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: unaccepted challenges: %w", err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unaccepted challenges: %w", err)
	}
	return out, nil
}

// Prune deletes the matches dead (ids the caller judged to hold no match
// worth keeping: an invalid or long-expired challenge, a challenge never
// stored) with their summaries, and every event first seen before
// seenBefore that belongs to no match but dead ones (an event of no match
// at all included). An event that also belongs to a live match stays, and
// so does anything seen at or after seenBefore: a challenge may still
// arrive for events that came first. With dryRun nothing changes and the
// counts say what would go.
func (s *Store) Prune(ctx context.Context, dead []string, seenBefore int64, dryRun bool) (PruneStats, error) {
	var st PruneStats
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := markDoomed(ctx, tx, dead, seenBefore); err != nil {
			return err
		}
		var err error
		if st, err = countDoomed(ctx, tx); err != nil {
			return err
		}
		if dryRun {
			return errDryRun
		}
		return execAll(ctx, tx,
			`DELETE FROM summaries WHERE match IN
			   (SELECT e.id FROM events e JOIN prune_doomed d ON d.seq = e.seq WHERE e.kind = `+fmt.Sprint(nostr.KindChallenge)+`)`,
			`DELETE FROM event_relays WHERE event IN (SELECT seq FROM prune_doomed)`,
			`DELETE FROM event_matches WHERE event IN (SELECT seq FROM prune_doomed)`,
			`DELETE FROM events WHERE seq IN (SELECT seq FROM prune_doomed)`,
			`DELETE FROM prune_dead`,
			`DELETE FROM prune_doomed`)
	})
	if errors.Is(err, errDryRun) {
		return st, nil
	}
	if err != nil {
		return PruneStats{}, fmt.Errorf("store: prune: %w", err)
	}
	return st, nil
}

func execAll(ctx context.Context, tx *sql.Tx, stmts ...string) error {
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// markDoomed fills prune_dead with dead and prune_doomed with the events
// to delete: seen before the cutoff, and no membership in a live match (a
// dead challenge's own membership is in prune_dead).
func markDoomed(ctx context.Context, tx *sql.Tx, dead []string, seenBefore int64) error {
	if err := execAll(ctx, tx,
		`CREATE TEMP TABLE IF NOT EXISTS prune_dead (match TEXT PRIMARY KEY) WITHOUT ROWID`,
		`CREATE TEMP TABLE IF NOT EXISTS prune_doomed (seq INTEGER PRIMARY KEY)`,
		`DELETE FROM prune_dead`,
		`DELETE FROM prune_doomed`); err != nil {
		return err
	}
	ins, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO prune_dead (match) VALUES (?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	for _, m := range dead {
		if _, err := ins.ExecContext(ctx, m); err != nil {
			return err
		}
	}
	_, err = tx.ExecContext(ctx,
		`INSERT INTO prune_doomed (seq)
		 SELECT e.seq FROM events e
		 WHERE e.seen_at < ?
		   AND (e.kind != ? OR e.id IN (SELECT match FROM prune_dead))
		   AND NOT EXISTS (SELECT 1 FROM event_matches m
		                   WHERE m.event = e.seq AND m.match NOT IN (SELECT match FROM prune_dead))`,
		seenBefore, nostr.KindChallenge)
	return err
}

// countDoomed counts what prune_doomed would delete. A summary goes with
// its challenge: only when the challenge goes.
func countDoomed(ctx context.Context, tx *sql.Tx) (PruneStats, error) {
	var st PruneStats
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM prune_doomed`).Scan(&st.Events); err != nil {
		return st, err
	}
	if err := tx.QueryRowContext(ctx,
		`SELECT count(*) FROM events e JOIN prune_doomed d ON d.seq = e.seq WHERE e.kind = ?`,
		nostr.KindChallenge).Scan(&st.Matches); err != nil {
		return st, err
	}
	err := tx.QueryRowContext(ctx,
		`SELECT count(*) FROM summaries WHERE match IN
		   (SELECT e.id FROM events e JOIN prune_doomed d ON d.seq = e.seq WHERE e.kind = ?)`,
		nostr.KindChallenge).Scan(&st.Summaries)
	return st, err
}

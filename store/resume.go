package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// What a daemon needs to resume without re-folding the whole history
// (issue 16): the matches that are not final, the matches whose events
// are newer than their summary (dirty), and whether any summary was
// written by another version of the fold.

// Resume is what a start folds: Open (not final, not expired, not
// dormant) and Dirty (stored events newer than the summary, or no summary
// at all), and how many summaries an older or newer fold wrote (Stale:
// re-folded in the background).
type Resume struct {
	Open, Dirty []string
	Stale       int
	Dormant     int // open matches left out as dormant
}

// Dormancy says which stored matches a daemon leaves dormant (issue 28):
// those whose summary says they have been idle since before Before (the
// daemon's now minus its grace), except the games Self plays, whose duties
// (a timeout claim, a result to sign) the house must never miss, and, for
// an Arbiter, the matches with a request, which it must rule on. The zero
// Dormancy leaves nothing dormant.
type Dormancy struct {
	Before  int64
	Self    string
	Arbiter bool
}

// dormantSQL is the condition on a summary row of a dormant match, with
// Dormancy's Before, Self and Arbiter as the parameters ?1, ?2 and ?3 (the
// daemon decides IdleSince and Requested; this only compares them).
const dormantSQL = `(final = 0 AND idle_since > 0 AND idle_since < ?1 AND first != ?2 AND second != ?2 AND (?3 = 0 OR requested = 0))`

// ResumeSet reads the resume set for a fold of version foldVersion, leaving
// out the matches d says are dormant.
func (s *Store) ResumeSet(ctx context.Context, foldVersion int, d Dormancy) (Resume, error) {
	var r Resume
	var err error
	if r.Open, err = s.column(ctx, `SELECT match FROM summaries INDEXED BY summaries_open
		WHERE final = 0 AND status != 'expired' AND NOT `+dormantSQL+` ORDER BY match`, d.Before, d.Self, d.Arbiter); err != nil {
		return r, fmt.Errorf("store: open matches: %w", err)
	}
	if r.Dormant, err = s.DormantCount(ctx, d); err != nil {
		return r, err
	}
	if r.Dirty, err = s.column(ctx, `SELECT match FROM dirty ORDER BY match`); err != nil {
		return r, fmt.Errorf("store: dirty matches: %w", err)
	}
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM summaries WHERE fold_version != ?`, foldVersion).Scan(&r.Stale); err != nil {
		return r, fmt.Errorf("store: stale summaries: %w", err)
	}
	return r, nil
}

// StaleSummaries returns up to limit matches after the id after whose
// summary a fold other than foldVersion wrote, in id order.
func (s *Store) StaleSummaries(ctx context.Context, foldVersion int, after string, limit int) ([]string, error) {
	ids, err := s.column(ctx, `SELECT match FROM summaries INDEXED BY summaries_fold_version
		WHERE fold_version != ? AND match > ? ORDER BY match LIMIT ?`, foldVersion, after, limit)
	if err != nil {
		return nil, fmt.Errorf("store: stale summaries: %w", err)
	}
	return ids, nil
}

// ClearDirty takes the dirty marks of matches that hold no valid match
// (their fold fails, so no summary will clear them).
func (s *Store) ClearDirty(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `DELETE FROM dirty WHERE match = ?`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, id := range ids {
			if _, err := stmt.ExecContext(ctx, id); err != nil {
				return err
			}
		}
		return nil
	})
}

// HaveSummaries reports which of ids have a stored summary: a match the
// daemon does not keep in memory (final, or expired) is one of them.
func (s *Store) HaveSummaries(ctx context.Context, ids []string) (map[string]bool, error) {
	out := map[string]bool{}
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), 500)]
		ids = ids[len(chunk):]
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		got, err := s.column(ctx, `SELECT match FROM summaries WHERE match IN (?`+strings.Repeat(",?", len(chunk)-1)+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("store: summaries: %w", err)
		}
		for _, id := range got {
			out[id] = true
		}
	}
	return out, nil
}

// AcceptedPlayers returns every pubkey that plays an accepted match, once.
func (s *Store) AcceptedPlayers(ctx context.Context) ([]string, error) {
	ids, err := s.column(ctx, `SELECT first FROM summaries WHERE second != ''
		UNION SELECT second FROM summaries WHERE second != ''`)
	if err != nil {
		return nil, fmt.Errorf("store: players: %w", err)
	}
	return ids, nil
}

// DormantCount counts the matches d says are dormant.
func (s *Store) DormantCount(ctx context.Context, d Dormancy) (int, error) {
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM summaries INDEXED BY summaries_open
		WHERE `+dormantSQL, d.Before, d.Self, d.Arbiter).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: dormant matches: %w", err)
	}
	return n, nil
}

// StatusCounts counts the stored summaries by status; settled counts only
// the final and expired ones and those d says are dormant (the matches a
// daemon does not keep), the dormant ones under "dormant", not their
// status.
func (s *Store) StatusCounts(ctx context.Context, settled bool, d Dormancy) (map[string]int, error) {
	q := `SELECT CASE WHEN ` + dormantSQL + ` THEN 'dormant' ELSE status END AS st, count(*) FROM summaries GROUP BY st`
	if settled {
		q = `SELECT CASE WHEN ` + dormantSQL + ` THEN 'dormant' ELSE status END AS st, count(*) FROM summaries
			WHERE final = 1 OR status = 'expired' OR ` + dormantSQL + ` GROUP BY st`
	}
	rows, err := s.r.QueryContext(ctx, q, d.Before, d.Self, d.Arbiter)
	if err != nil {
		return nil, fmt.Errorf("store: status counts: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var st string
		var n int
		if err := rows.Scan(&st, &n); err != nil {
			return nil, err
		}
		out[st] = n
	}
	return out, rows.Err()
}

func (s *Store) column(ctx context.Context, q string, args ...any) ([]string, error) {
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// UnsettledMatches lists, sorted, the matches whose summary may not say
// what a fold of version foldVersion would: those marked dirty (events
// newer than their summary, or no summary at all) and those whose summary
// another fold version wrote. A full site build folds these to forecast
// the ratings (a store ingested without a daemon has no summaries at all)
// and trusts the summaries of the others.
func (s *Store) UnsettledMatches(ctx context.Context, foldVersion int) ([]string, error) {
	ids, err := s.column(ctx, `SELECT match FROM dirty
		UNION SELECT match FROM summaries INDEXED BY summaries_fold_version WHERE fold_version != ?
		ORDER BY 1`, foldVersion)
	if err != nil {
		return nil, fmt.Errorf("store: unsettled matches: %w", err)
	}
	return ids, nil
}

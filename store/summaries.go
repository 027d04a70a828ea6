package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// Summary is a match's summary as the fold last computed it: JSON is the
// `vesper verify --json` line (PROTOCOL.md section 6) and the other fields
// copy parts of it into columns that can be indexed and listed without
// decoding it. Second is "" while nobody has accepted.
type Summary struct {
	Match, Game, First, Second, Status string
	Final                              bool
	UpdatedAt                          int64
	JSON                               []byte
	// FoldVersion is the match.FoldVersion of the fold that wrote it.
	FoldVersion int
	// IdleSince is when an accepted match that is not final last saw
	// anything happen (its deadline or its last event, the later), 0 for a
	// match that never goes dormant; Requested says it has a valid
	// arbitration request. Dormancy compares them.
	IdleSince int64
	Requested bool
}

const summaryCols = `match, game, first, second, status, final, updated_at, json, fold_version, idle_since, requested`

// PutSummary stores or replaces the summary of sum.Match.
func (s *Store) PutSummary(ctx context.Context, sum Summary) error {
	return s.PutSummaries(ctx, []Summary{sum})
}

// PutSummaries stores or replaces several summaries in one transaction:
// one event that touches many matches (a junk event naming thousands)
// then costs one commit, not one per match.
func (s *Store) PutSummaries(ctx context.Context, sums []Summary) error {
	for _, sum := range sums {
		if sum.Match == "" {
			return errors.New("store: summary without a match id")
		}
		if !json.Valid(sum.JSON) {
			return fmt.Errorf("store: summary of %s: JSON is not valid", sum.Match)
		}
	}
	if len(sums) == 0 {
		return nil
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx,
			`INSERT INTO summaries (`+summaryCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			 ON CONFLICT (match) DO UPDATE SET
			   game = excluded.game, first = excluded.first, second = excluded.second,
			   status = excluded.status, final = excluded.final,
			   updated_at = excluded.updated_at, json = excluded.json,
			   fold_version = excluded.fold_version, idle_since = excluded.idle_since,
			   requested = excluded.requested`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		clean := tx.StmtContext(ctx, s.st.clearDirty)
		for _, sum := range sums {
			if _, err := stmt.ExecContext(ctx, sum.Match, sum.Game, sum.First, sum.Second, sum.Status,
				sum.Final, sum.UpdatedAt, sum.JSON, sum.FoldVersion, sum.IdleSince, sum.Requested); err != nil {
				return fmt.Errorf("summary of %s: %w", sum.Match, err)
			}
			if _, err := clean.ExecContext(ctx, sum.Match); err != nil {
				return fmt.Errorf("summary of %s: %w", sum.Match, err)
			}
		}
		return nil
	})
	if err != nil {
		if len(sums) == 1 {
			return fmt.Errorf("store: summary of %s: %w", sums[0].Match, err)
		}
		return fmt.Errorf("store: summaries: %w", err)
	}
	return nil
}

// Summary returns the stored summary of match.
func (s *Store) Summary(ctx context.Context, match string) (Summary, bool, error) {
	sums, err := s.summaries(ctx, `WHERE match = ?`, match)
	if err != nil {
		return Summary{}, false, fmt.Errorf("store: summary of %s: %w", match, err)
	}
	if len(sums) == 0 {
		return Summary{}, false, nil
	}
	return sums[0], true, nil
}

// Summaries returns every stored summary, ordered by match id.
func (s *Store) Summaries(ctx context.Context) ([]Summary, error) {
	sums, err := s.summaries(ctx, `ORDER BY match`)
	if err != nil {
		return nil, fmt.Errorf("store: summaries: %w", err)
	}
	return sums, nil
}

// SummariesOf returns the summaries of the matches pubkey plays in, as
// first or second player, ordered by match id.
func (s *Store) SummariesOf(ctx context.Context, pubkey string) ([]Summary, error) {
	sums, err := s.summaries(ctx, `WHERE first = ?1 OR second = ?1 ORDER BY match`, pubkey)
	if err != nil {
		return nil, fmt.Errorf("store: summaries of %s: %w", pubkey, err)
	}
	return sums, nil
}

func (s *Store) summaries(ctx context.Context, where string, args ...any) ([]Summary, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+summaryCols+` FROM summaries `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Summary
	for rows.Next() {
		var sum Summary
		if err := rows.Scan(&sum.Match, &sum.Game, &sum.First, &sum.Second, &sum.Status,
			&sum.Final, &sum.UpdatedAt, &sum.JSON, &sum.FoldVersion, &sum.IdleSince, &sum.Requested); err != nil {
			return nil, err
		}
		out = append(out, sum)
	}
	return out, rows.Err()
}

package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// Analysis is a match's stored move analysis (issue 18): JSON is its
// analysis.json, Status its status ("done" or "failed"), Engine a short
// name of what computed it, UpdatedAt when (unix seconds). The store keeps
// what it is given; package analysis owns the meaning.
type Analysis struct {
	Match, Status, Engine string
	JSON                  []byte
	UpdatedAt             int64
}

const analysisCols = `match, status, engine, json, updated_at`

// PutAnalysis stores or replaces the analysis of a.Match.
func (s *Store) PutAnalysis(ctx context.Context, a Analysis) error {
	switch {
	case a.Match == "":
		return errors.New("store: analysis without a match id")
	case a.Status == "":
		return fmt.Errorf("store: analysis of %s: no status", a.Match)
	case !json.Valid(a.JSON):
		return fmt.Errorf("store: analysis of %s: JSON is not valid", a.Match)
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx,
			`INSERT INTO analyses (`+analysisCols+`) VALUES (?, ?, ?, ?, ?)
			 ON CONFLICT (match) DO UPDATE SET
			   status = excluded.status, engine = excluded.engine,
			   json = excluded.json, updated_at = excluded.updated_at`,
			a.Match, a.Status, a.Engine, a.JSON, a.UpdatedAt)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: analysis of %s: %w", a.Match, err)
	}
	return nil
}

// Analysis returns the stored analysis of match.
func (s *Store) Analysis(ctx context.Context, match string) (Analysis, bool, error) {
	got, err := s.Analyses(ctx, []string{match})
	if err != nil {
		return Analysis{}, false, err
	}
	a, ok := got[match]
	return a, ok, nil
}

// Analyses returns the stored analyses of matches, by match id; a match
// without one is absent from the map. The ids go in chunks, under SQLite's
// limit on a statement's parameters.
func (s *Store) Analyses(ctx context.Context, matches []string) (map[string]Analysis, error) {
	out := make(map[string]Analysis, len(matches))
	for start := 0; start < len(matches); start += knownChunk {
		chunk := matches[start:min(start+knownChunk, len(matches))]
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		if err := s.analyses(ctx, out, `SELECT `+analysisCols+` FROM analyses
			WHERE match IN (`+placeholders(len(chunk))+`)`, args...); err != nil {
			return nil, fmt.Errorf("store: analyses: %w", err)
		}
	}
	return out, nil
}

func (s *Store) analyses(ctx context.Context, out map[string]Analysis, q string, args ...any) error {
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var a Analysis
		if err := rows.Scan(&a.Match, &a.Status, &a.Engine, &a.JSON, &a.UpdatedAt); err != nil {
			return err
		}
		out[a.Match] = a
	}
	return rows.Err()
}

// Unanalysed returns up to limit (all when limit < 1) final matches of
// games (those the caller grades) that have no analysis row, done or
// failed: the queue of a background analyser. The queue goes round by player, and within a round
// the newest summary first: the n-th game of a player waits behind every
// player's (n-1)-th, so a flood of one key's games, or of games backdated
// to look old (created_at is the author's to choose; updated_at is when
// this store wrote the summary), cannot keep a real game waiting. A game's
// round is the later of its two players' (ties by id).
func (s *Store) Unanalysed(ctx context.Context, games []string, limit int) ([]string, error) {
	return s.unanalysed(ctx, games, nil, limit)
}

// UnanalysedOf is Unanalysed restricted to the games that one of players
// played, in the same order: the analyser takes the listed players' games
// before the rest (issue 38 item 3), so that a backlog of strangers' games
// cannot keep a real one waiting.
func (s *Store) UnanalysedOf(ctx context.Context, games, players []string, limit int) ([]string, error) {
	if len(players) == 0 {
		return nil, nil
	}
	return s.unanalysed(ctx, games, players, limit)
}

func (s *Store) unanalysed(ctx context.Context, games, players []string, limit int) ([]string, error) {
	if len(games) == 0 {
		return nil, nil
	}
	list, err := json.Marshal(games)
	if err != nil {
		return nil, fmt.Errorf("store: unanalysed: %w", err)
	}
	var of any // NULL: every player
	if players != nil {
		b, err := json.Marshal(players)
		if err != nil {
			return nil, fmt.Errorf("store: unanalysed: %w", err)
		}
		of = string(b)
	}
	if limit < 1 {
		limit = -1 // SQLite: no limit
	}
	rows, err := s.r.QueryContext(ctx,
		`WITH q AS (
		   SELECT s.match, s.updated_at,
		     row_number() OVER (PARTITION BY s.first ORDER BY s.updated_at DESC, s.match) AS by_first,
		     row_number() OVER (PARTITION BY s.second ORDER BY s.updated_at DESC, s.match) AS by_second
		   FROM summaries s
		   WHERE s.final = 1 AND s.game IN (SELECT value FROM json_each(?1))
		     AND (?2 IS NULL OR s.first IN (SELECT value FROM json_each(?2)) OR s.second IN (SELECT value FROM json_each(?2)))
		     AND NOT EXISTS (SELECT 1 FROM analyses a WHERE a.match = s.match))
		 SELECT match FROM q
		 ORDER BY max(by_first, by_second), updated_at DESC, match
		 LIMIT ?3`, string(list), of, limit)
	if err != nil {
		return nil, fmt.Errorf("store: unanalysed: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: unanalysed: %w", err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unanalysed: %w", err)
	}
	return out, nil
}

// AnalysisStatuses returns the status of every stored analysis by match:
// what a site build needs to know which pages show grades, without
// reading one analysis.
func (s *Store) AnalysisStatuses(ctx context.Context) (map[string]string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT match, status FROM analyses`)
	if err != nil {
		return nil, fmt.Errorf("store: analysis statuses: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var m, st string
		if err := rows.Scan(&m, &st); err != nil {
			return nil, fmt.Errorf("store: analysis statuses: %w", err)
		}
		out[m] = st
	}
	return out, rows.Err()
}

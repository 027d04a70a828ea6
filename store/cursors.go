package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Cursor returns the relay's backfill cursor: the created_at up to which
// its events are stored, 0 when the relay has none yet.
func (s *Store) Cursor(ctx context.Context, relay string) (int64, error) {
	var at int64
	err := s.r.QueryRowContext(ctx, `SELECT created_at FROM cursors WHERE relay = ?`, relay).Scan(&at)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("store: cursor of %s: %w", relay, err)
	}
	return at, nil
}

// SetCursor moves the relay's cursor to createdAt, never backwards: an
// older value is ignored, so subscriptions that finish out of order leave
// the newest cursor in place. Set it only once the events up to createdAt
// are stored.
func (s *Store) SetCursor(ctx context.Context, relay string, createdAt int64) error {
	if relay == "" {
		return errors.New("store: cursor without a relay")
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx,
			`INSERT INTO cursors (relay, created_at) VALUES (?, ?)
			 ON CONFLICT (relay) DO UPDATE SET created_at = max(created_at, excluded.created_at)`,
			relay, createdAt)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: cursor of %s: %w", relay, err)
	}
	return nil
}

// Cursors returns every relay's cursor.
func (s *Store) Cursors(ctx context.Context) (map[string]int64, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT relay, created_at FROM cursors`)
	if err != nil {
		return nil, fmt.Errorf("store: cursors: %w", err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var relay string
		var at int64
		if err := rows.Scan(&relay, &at); err != nil {
			return nil, fmt.Errorf("store: cursors: %w", err)
		}
		out[relay] = at
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: cursors: %w", err)
	}
	return out, nil
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
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
	rows, err := s.r.QueryContext(ctx, `SELECT relay, created_at FROM cursors WHERE relay NOT LIKE 'backfill|%'`)
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

// Backfill progress lives in the cursors table under keys that are not
// relay URLs ("backfill|<relay>|since", "|top", "|until|<i>"), so that it
// needs no schema change: a relay's unfinished backfill, which every event
// created in [until[i], top] that its game filter i matches is stored for,
// and [since, until[i]] still to do (nostr/relay.Backfill).
func backfillKey(relay, field string) string { return "backfill|" + relay + "|" + field }

// prefixEnd is the least string above every key starting with prefix,
// which ends in '|' ('}' follows it), for a range scan of the key index.
func prefixEnd(prefix string) string { return prefix[:len(prefix)-1] + "}" }

// Backfill returns the relay's unfinished backfill; until is empty when
// there is none.
func (s *Store) Backfill(ctx context.Context, relay string) (since, top int64, until []int64, err error) {
	prefix := backfillKey(relay, "")
	rows, err := s.r.QueryContext(ctx,
		`SELECT relay, created_at FROM cursors WHERE relay >= ? AND relay < ?`, prefix, prefixEnd(prefix))
	if err != nil {
		return 0, 0, nil, fmt.Errorf("store: backfill of %s: %w", relay, err)
	}
	defer rows.Close()
	byIndex := map[int]int64{}
	for rows.Next() {
		var key string
		var v int64
		if err := rows.Scan(&key, &v); err != nil {
			return 0, 0, nil, fmt.Errorf("store: backfill of %s: %w", relay, err)
		}
		field := key[len(prefix):]
		switch {
		case field == "since":
			since = v
		case field == "top":
			top = v
		case strings.HasPrefix(field, "until|"):
			if i, err := strconv.Atoi(field[len("until|"):]); err == nil && i >= 0 && i < 64 {
				byIndex[i] = v
			}
		}
	}
	if err := rows.Err(); err != nil {
		return 0, 0, nil, fmt.Errorf("store: backfill of %s: %w", relay, err)
	}
	// A gap in the indexes is a record this build did not write: none.
	for i := range len(byIndex) {
		v, ok := byIndex[i]
		if !ok {
			return 0, 0, nil, nil
		}
		until = append(until, v)
	}
	return since, top, until, nil
}

// SetBackfill replaces the relay's backfill progress in one transaction;
// an empty until clears it.
func (s *Store) SetBackfill(ctx context.Context, relay string, since, top int64, until []int64) error {
	if relay == "" {
		return errors.New("store: backfill without a relay")
	}
	prefix := backfillKey(relay, "")
	err := s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM cursors WHERE relay >= ? AND relay < ?`, prefix, prefixEnd(prefix)); err != nil {
			return err
		}
		if len(until) == 0 {
			return nil
		}
		put := func(field string, v int64) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO cursors (relay, created_at) VALUES (?, ?)`, backfillKey(relay, field), v)
			return err
		}
		if err := put("since", since); err != nil {
			return err
		}
		if err := put("top", top); err != nil {
			return err
		}
		for i, v := range until {
			if err := put("until|"+strconv.Itoa(i), v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: backfill of %s: %w", relay, err)
	}
	return nil
}

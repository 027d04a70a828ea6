package store

import (
	"context"
	"fmt"
)

// MatchStamps calls fn with the id and seen_at of every event of every
// match, match by match in ascending id order (the order of event_matches'
// key, so SQLite sorts nothing), without reading or parsing the events.
// The site compares these with the ones its previous build was made from
// to tell which matches changed. fn's error stops the scan and is returned.
func (s *Store) MatchStamps(ctx context.Context, fn func(match, id string, seenAt int64) error) error {
	rows, err := s.r.QueryContext(ctx, `SELECT m.match, e.id, e.seen_at
		FROM event_matches m JOIN events e ON e.seq = m.event
		ORDER BY m.match`)
	if err != nil {
		return fmt.Errorf("store: match stamps: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var match, id string
		var seen int64
		if err := rows.Scan(&match, &id, &seen); err != nil {
			return fmt.Errorf("store: match stamps: %w", err)
		}
		if err := fn(match, id, seen); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: match stamps: %w", err)
	}
	return nil
}

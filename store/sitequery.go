package store

import (
	"context"
	"fmt"

	"vesper/nostr"
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

// MatchEventsSeen is MatchEvents for the site: each event of the match and
// when it was first seen, in the same order, without the relays (a
// subquery and a JSON array per event that no page shows).
func (s *Store) MatchEventsSeen(ctx context.Context, match string) ([]*nostr.Event, map[string]int64, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT e.id, e.raw, e.seen_at
		FROM event_matches m JOIN events e ON e.seq = m.event
		WHERE m.match = ?1
		ORDER BY e.id = ?1 DESC, e.created_at, e.id`, match)
	if err != nil {
		return nil, nil, fmt.Errorf("store: match %s: %w", match, err)
	}
	defer rows.Close()
	var evs []*nostr.Event
	seen := map[string]int64{}
	for rows.Next() {
		var (
			id     string
			raw    []byte
			seenAt int64
		)
		if err := rows.Scan(&id, &raw, &seenAt); err != nil {
			return nil, nil, fmt.Errorf("store: match %s: %w", match, err)
		}
		ev, err := nostr.ParseStored(raw)
		if err != nil {
			return nil, nil, fmt.Errorf("store: match %s: stored event %s: %w", match, id, err)
		}
		if ev.ID != id {
			return nil, nil, fmt.Errorf("store: match %s: stored event %s holds %s", match, id, ev.ID)
		}
		evs = append(evs, ev)
		seen[id] = seenAt
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("store: match %s: %w", match, err)
	}
	return evs, seen, nil
}

package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

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
// subquery and a JSON array per event that no page shows). A full site
// build reads every stored event this way, twice for a store without
// summaries, so the rows come unsorted from a prepared statement and are
// put in MatchEvents' order here (challenge first, then by created_at and
// id).
func (s *Store) MatchEventsSeen(ctx context.Context, match string) ([]*nostr.Event, map[string]int64, error) {
	rows, err := s.st.matchEventsSeen.QueryContext(ctx, match)
	if err != nil {
		return nil, nil, fmt.Errorf("store: match %s: %w", match, err)
	}
	defer rows.Close()
	type row struct {
		ev *nostr.Event
		at int64
	}
	var evs []row
	seen := map[string]int64{}
	for rows.Next() {
		var (
			id     string
			raw    []byte
			seenAt int64
			at     int64
		)
		if err := rows.Scan(&id, &raw, &seenAt, &at); err != nil {
			return nil, nil, fmt.Errorf("store: match %s: %w", match, err)
		}
		ev, err := nostr.ParseStored(raw)
		if err != nil {
			return nil, nil, fmt.Errorf("store: match %s: stored event %s: %w", match, id, err)
		}
		if ev.ID != id {
			return nil, nil, fmt.Errorf("store: match %s: stored event %s holds %s", match, id, ev.ID)
		}
		evs = append(evs, row{ev, at})
		seen[id] = seenAt
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("store: match %s: %w", match, err)
	}
	slices.SortFunc(evs, func(a, b row) int {
		if a.ev.ID == match || b.ev.ID == match {
			return boolRank(b.ev.ID == match) - boolRank(a.ev.ID == match)
		}
		return cmp.Or(cmp.Compare(a.at, b.at), strings.Compare(a.ev.ID, b.ev.ID))
	})
	out := make([]*nostr.Event, len(evs))
	for i, r := range evs {
		out[i] = r.ev
	}
	return out, seen, nil
}

// boolRank is 1 for true, 0 for false.
func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

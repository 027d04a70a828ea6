// The counts behind the daemon's per-author quotas (daemon/quota.go).

package store

import (
	"context"
	"fmt"

	"vesper/nostr"
)

// OpenChallenges counts the challenges by pubkey created at or after since
// that no stored summary shows accepted, for the per-author quota on open
// challenges. A challenge not folded yet counts as open.
func (s *Store) OpenChallenges(ctx context.Context, pubkey string, since int64) (int, error) {
	var n int
	err := s.r.QueryRowContext(ctx,
		`SELECT count(*) FROM events e LEFT JOIN summaries s ON s.match = e.id
		 WHERE e.pubkey = ? AND e.kind = ? AND e.created_at >= ? AND coalesce(s.second, '') = ''`,
		pubkey, nostr.KindChallenge, since).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: open challenges of %s: %w", pubkey, err)
	}
	return n, nil
}

// authorScanFrom is the match size from which AuthorEvents counts by the
// author's events rather than the match's.
const authorScanFrom = 2000

// AuthorEvents counts the stored events of match by pubkey (the challenge
// aside), for the per-author quota of events per match.
func (s *Store) AuthorEvents(ctx context.Context, match, pubkey string) (int, error) {
	return s.authorEvents(ctx, match, pubkey, authorScanFrom)
}

func (s *Store) authorEvents(ctx context.Context, match, pubkey string, scanFrom int) (int, error) {
	var n int
	// Driven by the smaller side (CROSS JOIN fixes the order): a match of
	// ordinary length by its own events, whatever the author's history (an
	// agent of a long season has thousands: 23 ms a query at 10,000
	// matches); a match flooded past authorScanFrom events by the author's
	// (the quota is there for floods, and a fresh key has few events).
	var size int
	if err := s.r.QueryRowContext(ctx,
		`SELECT count(*) FROM (SELECT 1 FROM event_matches WHERE match = ? LIMIT ?)`, match, scanFrom).Scan(&size); err != nil {
		return 0, fmt.Errorf("store: events of %s in %s: %w", pubkey, match, err)
	}
	q := `SELECT count(*) FROM event_matches m CROSS JOIN events e
		 WHERE m.match = ?1 AND e.seq = m.event AND e.pubkey = ?2 AND e.id != ?1`
	if size >= scanFrom {
		q = `SELECT count(*) FROM events e CROSS JOIN event_matches m
		 WHERE e.pubkey = ?2 AND m.match = ?1 AND m.event = e.seq AND e.id != ?1`
	}
	err := s.r.QueryRowContext(ctx, q, match, pubkey).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: events of %s in %s: %w", pubkey, match, err)
	}
	return n, nil
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"vesper/nostr"
)

// House is what the store knows of the daemon's own key from its outbox:
// every outbox event is signed by the daemon, so the author of the latest
// one is the house, and its latest kind 0 there is the house's profile.
// The site build reads it so that pages label the house even when the
// build runs without the daemon (`vesper site build` without --daemon) and
// before the house's profile has come back from a relay.
type House struct {
	Pubkey  string
	Profile *nostr.Event // nil when the outbox holds no profile of Pubkey
}

// House returns the house known from the outbox; ok is false when the
// outbox is empty (a store that never ran a daemon with a key).
func (s *Store) House(ctx context.Context) (h House, ok bool, err error) {
	var raw []byte
	err = s.r.QueryRowContext(ctx, `SELECT raw FROM outbox ORDER BY seq DESC LIMIT 1`).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return House{}, false, nil
	}
	if err != nil {
		return House{}, false, fmt.Errorf("store: house: %w", err)
	}
	ev, err := nostr.ParseStored(raw)
	if err != nil {
		return House{}, false, fmt.Errorf("store: house: %w", err)
	}
	h.Pubkey = ev.PubKey
	// Profiles are few (one per profile version); scan them newest first
	// and keep the first by the house's key.
	rows, err := s.r.QueryContext(ctx, `SELECT raw FROM outbox WHERE duty LIKE 'profile:%' ORDER BY seq DESC`)
	if err != nil {
		return House{}, false, fmt.Errorf("store: house profile: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			return House{}, false, fmt.Errorf("store: house profile: %w", err)
		}
		ev, err := nostr.ParseStored(raw)
		if err != nil {
			return House{}, false, fmt.Errorf("store: house profile: %w", err)
		}
		if ev.Kind == nostr.KindProfile && ev.PubKey == h.Pubkey {
			h.Profile = ev
			break
		}
	}
	if err := rows.Err(); err != nil {
		return House{}, false, fmt.Errorf("store: house profile: %w", err)
	}
	return h, true, nil
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"vesper/nostr"
)

// PutProfile keeps a verified kind-0 event if it is the newest of its
// author: a later created_at wins and, at equal created_at, the lower id
// (NIP-01's rule for replaceable events), so the outcome does not depend
// on arrival order.
func (s *Store) PutProfile(ctx context.Context, ev *nostr.Event) error {
	if err := checkIDs(ev); err != nil {
		return err
	}
	if ev.Kind != nostr.KindProfile {
		return fmt.Errorf("store: event %s: kind %d is not a profile", ev.ID, ev.Kind)
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx,
			`INSERT INTO profiles (pubkey, id, created_at, raw) VALUES (?, ?, ?, ?)
			 ON CONFLICT (pubkey) DO UPDATE SET
			   id = excluded.id, created_at = excluded.created_at, raw = excluded.raw
			 WHERE excluded.created_at > profiles.created_at
			    OR (excluded.created_at = profiles.created_at AND excluded.id < profiles.id)`,
			ev.PubKey, ev.ID, int64(ev.CreatedAt), nostr.MarshalEvent(ev))
		return err
	})
	if err != nil {
		return fmt.Errorf("store: profile %s: %w", ev.ID, err)
	}
	return nil
}

// Profile returns the newest stored profile of pubkey.
func (s *Store) Profile(ctx context.Context, pubkey string) (*nostr.Event, bool, error) {
	var raw []byte
	err := s.r.QueryRowContext(ctx, `SELECT raw FROM profiles WHERE pubkey = ?`, pubkey).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("store: profile of %s: %w", pubkey, err)
	}
	ev, err := nostr.ParseStored(raw)
	if err != nil {
		return nil, false, fmt.Errorf("store: profile of %s: %w", pubkey, err)
	}
	return ev, true, nil
}

// Profiles returns every stored profile, ordered by pubkey.
func (s *Store) Profiles(ctx context.Context) ([]*nostr.Event, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT raw FROM profiles ORDER BY pubkey`)
	if err != nil {
		return nil, fmt.Errorf("store: profiles: %w", err)
	}
	defer rows.Close()
	var out []*nostr.Event
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			return nil, fmt.Errorf("store: profiles: %w", err)
		}
		ev, err := nostr.ParseStored(raw)
		if err != nil {
			return nil, fmt.Errorf("store: profiles: %w", err)
		}
		out = append(out, ev)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: profiles: %w", err)
	}
	return out, nil
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"vesper/nostr"
)

// Held challenges (issue 30 item 4): a challenge a relay's hourly budget
// refused is kept here, not stored as an event, so that it can still come
// in when a player answers it (an accept or a move from another key) or
// when a later hour's budget has room. The table is bounded by the caller
// (HoldChallenges' max), and created on first write, like sync_marks, so
// that it needs no schema version: a store without it holds nothing.
const heldTable = `CREATE TABLE IF NOT EXISTS held_challenges (
	id         TEXT PRIMARY KEY,
	pubkey     TEXT    NOT NULL,
	relay      TEXT    NOT NULL,
	created_at INTEGER NOT NULL,
	held_at    INTEGER NOT NULL,
	raw        BLOB    NOT NULL
)`

const heldIndex = `CREATE INDEX IF NOT EXISTS held_challenges_at ON held_challenges(held_at, id)`

// Held is one held challenge.
type Held struct {
	Event  *nostr.Event
	Relay  string // the relay that delivered it
	HeldAt int64  // when it was held (our clock)
}

// HoldChallenges keeps challenges refused for now, each once (a second
// hold of an id keeps the first), and then the newest max of all held (max
// < 1: no bound), by held_at: the older ones were offered at least one
// later hour's budget already. It returns how many it held for the first
// time and how many it evicted. Each challenge is held with its Relay;
// its SeenAt is not kept (now is its held_at).
func (s *Store) HoldChallenges(ctx context.Context, in []Incoming, now int64, max int) (added, evicted int, err error) {
	rows := make([]incomingRow, len(in))
	for i, it := range in {
		if rows[i], err = it.row(); err != nil {
			return 0, 0, err
		}
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		if err := ensureHeld(ctx, tx); err != nil {
			return err
		}
		for _, r := range rows {
			n, err := holdOne(ctx, tx, r, now)
			if err != nil {
				return err
			}
			added += n
		}
		if max < 1 {
			return nil
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM held_challenges WHERE id IN (
			SELECT id FROM held_challenges ORDER BY held_at DESC, id DESC LIMIT -1 OFFSET ?)`, max)
		if err != nil {
			return err
		}
		evicted, err = rowsAffected(res)
		return err
	})
	if err != nil {
		return 0, 0, fmt.Errorf("store: hold challenges: %w", err)
	}
	return added, evicted, nil
}

// holdOne holds r's challenge unless it is held already, and returns 1 if
// it was not.
func holdOne(ctx context.Context, tx *sql.Tx, r incomingRow, now int64) (int, error) {
	ev := r.ev
	if ev.Kind != nostr.KindChallenge {
		return 0, fmt.Errorf("event %s is not a challenge", ev.ID)
	}
	res, err := tx.ExecContext(ctx,
		`INSERT INTO held_challenges (id, pubkey, relay, created_at, held_at, raw) VALUES (?, ?, ?, ?, ?, ?)
		 ON CONFLICT (id) DO NOTHING`,
		ev.ID, ev.PubKey, r.relay, int64(ev.CreatedAt), now, r.raw)
	if err != nil {
		return 0, err
	}
	return rowsAffected(res)
}

func rowsAffected(res sql.Result) (int, error) {
	n, err := res.RowsAffected()
	return int(n), err
}

func ensureHeld(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, heldTable); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, heldIndex)
	return err
}

// HeldChallenges returns the held challenges among ids.
func (s *Store) HeldChallenges(ctx context.Context, ids []string) ([]Held, error) {
	var out []Held
	for start := 0; start < len(ids); start += knownChunk {
		chunk := ids[start:min(start+knownChunk, len(ids))]
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		got, err := s.queryHeld(ctx, `WHERE id IN (`+placeholders(len(chunk))+`) ORDER BY held_at, id`, args...)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}

// HeldAfter returns up to limit held challenges held after (at, id) in
// the order (held_at, id): the longest held first, the order a new hour's
// budget takes them in. (0, "") starts at the first.
func (s *Store) HeldAfter(ctx context.Context, at int64, id string, limit int) ([]Held, error) {
	return s.queryHeld(ctx, `WHERE (held_at, id) > (?, ?) ORDER BY held_at, id LIMIT ?`, at, id, limit)
}

func (s *Store) queryHeld(ctx context.Context, where string, args ...any) ([]Held, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT relay, held_at, raw FROM held_challenges `+where, args...)
	if err != nil {
		if strings.Contains(err.Error(), "no such table") {
			return nil, nil
		}
		return nil, fmt.Errorf("store: held challenges: %w", err)
	}
	defer rows.Close()
	var out []Held
	for rows.Next() {
		var h Held
		var raw []byte
		if err := rows.Scan(&h.Relay, &h.HeldAt, &raw); err != nil {
			return nil, fmt.Errorf("store: held challenges: %w", err)
		}
		if h.Event, err = nostr.ParseStored(raw); err != nil {
			return nil, fmt.Errorf("store: held challenge: %w", err)
		}
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: held challenges: %w", err)
	}
	return out, nil
}

// ReleaseHeld forgets held challenges: stored since, or expired.
func (s *Store) ReleaseHeld(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := ensureHeld(ctx, tx); err != nil {
			return err
		}
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, `DELETE FROM held_challenges WHERE id = ?`, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: release held: %w", err)
	}
	return nil
}

// HeldCount returns how many challenges are held.
func (s *Store) HeldCount(ctx context.Context) (int, error) {
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM held_challenges`).Scan(&n)
	if err != nil && strings.Contains(err.Error(), "no such table") {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("store: held count: %w", err)
	}
	return n, nil
}

// NamedByOther reports whether the store holds an accept or a move of
// match from a key other than author: someone answered the challenge, so
// it is a game, not a flood's.
func (s *Store) NamedByOther(ctx context.Context, match, author string) (bool, error) {
	var one int
	err := s.r.QueryRowContext(ctx,
		`SELECT 1 FROM event_matches m CROSS JOIN events e
		 WHERE m.match = ? AND e.seq = m.event AND e.kind IN (?, ?) AND e.pubkey != ? LIMIT 1`,
		match, nostr.KindAccept, nostr.KindMove, author).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: answers of %s: %w", match, err)
	}
	return true, nil
}

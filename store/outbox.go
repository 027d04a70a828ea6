package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"vesper/nostr"
)

// OutboxItem is one duty of the daemon (PROTOCOL.md section 3) with the
// signed event that fulfils it. The duty key names the duty, not the event
// ("claim:<match>", "ruling:<match>:<request id>", "move:<match>:<ply>"),
// so that a restart that decides the same duty again finds it recorded and
// publishes the recorded event instead of signing a second one.
type OutboxItem struct {
	Duty      string
	Event     *nostr.Event
	CreatedAt int64    // the event's created_at: when the daemon signed it
	Attempts  int      // publish attempts recorded, failed or not
	SentTo    []string // relays that acknowledged it, sorted
	Done      bool
	LastError string // the last failed attempt's error, kept after success
}

// OutboxAdd records duty with its signed event. If the duty is already
// recorded, nothing changes and the recorded item is returned: one duty
// never gets two events.
func (s *Store) OutboxAdd(ctx context.Context, duty string, ev *nostr.Event) (added bool, existing OutboxItem, err error) {
	if duty == "" {
		return false, OutboxItem{}, errors.New("store: outbox duty without a key")
	}
	if err := checkIDs(ev); err != nil {
		return false, OutboxItem{}, err
	}
	// Outbox events are few and published for the world to check: one
	// that would fail verification must fail here, not at every relay.
	if err := nostr.Verify(ev); err != nil {
		return false, OutboxItem{}, fmt.Errorf("store: outbox %s: %w", duty, err)
	}
	err = s.writeSynced(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx,
			`INSERT INTO outbox (duty, event_id, raw, created_at) VALUES (?, ?, ?, ?)
			 ON CONFLICT (duty) DO NOTHING`,
			duty, ev.ID, nostr.MarshalEvent(ev), int64(ev.CreatedAt))
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if n == 1 {
			added = true
			return nil
		}
		items, err := queryOutbox(ctx, tx, `WHERE duty = ?`, duty)
		if err != nil {
			return err
		}
		if len(items) != 1 {
			return fmt.Errorf("duty vanished")
		}
		existing = items[0]
		return nil
	})
	if err != nil {
		return false, OutboxItem{}, fmt.Errorf("store: outbox %s: %w", duty, err)
	}
	return added, existing, nil
}

// OutboxPending returns the duties not yet done, in the order recorded.
func (s *Store) OutboxPending(ctx context.Context) ([]OutboxItem, error) {
	items, err := queryOutbox(ctx, s.r, `WHERE done = 0 ORDER BY seq`)
	if err != nil {
		return nil, fmt.Errorf("store: outbox: %w", err)
	}
	return items, nil
}

// Outbox returns every duty, done or not, in the order recorded.
func (s *Store) Outbox(ctx context.Context) ([]OutboxItem, error) {
	items, err := queryOutbox(ctx, s.r, `ORDER BY seq`)
	if err != nil {
		return nil, fmt.Errorf("store: outbox: %w", err)
	}
	return items, nil
}

// OutboxGet returns one duty.
func (s *Store) OutboxGet(ctx context.Context, duty string) (OutboxItem, bool, error) {
	items, err := queryOutbox(ctx, s.r, `WHERE duty = ?`, duty)
	if err != nil {
		return OutboxItem{}, false, fmt.Errorf("store: outbox %s: %w", duty, err)
	}
	if len(items) == 0 {
		return OutboxItem{}, false, nil
	}
	return items[0], true, nil
}

// OutboxHas reports whether duty is recorded, done or not.
func (s *Store) OutboxHas(ctx context.Context, duty string) (bool, error) {
	var one int
	err := s.r.QueryRowContext(ctx, `SELECT 1 FROM outbox WHERE duty = ?`, duty).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: outbox %s: %w", duty, err)
	}
	return true, nil
}

// OutboxMarkSent records a publish attempt that relays acknowledged: they
// join SentTo and the duty is done. Marking a done duty again only adds
// relays (a late acknowledgement). relays must not be empty: a publication
// nobody acknowledged is a failed attempt (OutboxAttempt).
func (s *Store) OutboxMarkSent(ctx context.Context, duty string, relays []string) error {
	if len(relays) == 0 {
		return fmt.Errorf("store: outbox %s: marked sent to no relay", duty)
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		var sentJSON string
		err := tx.QueryRowContext(ctx, `SELECT sent_to FROM outbox WHERE duty = ?`, duty).Scan(&sentJSON)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		var sent []string
		if err := json.Unmarshal([]byte(sentJSON), &sent); err != nil {
			return fmt.Errorf("sent_to: %w", err)
		}
		for _, r := range relays {
			if r != "" && !slices.Contains(sent, r) {
				sent = append(sent, r)
			}
		}
		slices.Sort(sent)
		b, err := json.Marshal(sent)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx,
			`UPDATE outbox SET sent_to = ?, done = 1, attempts = attempts + 1 WHERE duty = ?`,
			string(b), duty)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: outbox %s: %w", duty, err)
	}
	return nil
}

// OutboxAttempt records a failed publish attempt and its error. The duty
// stays pending (or done, if it already was).
func (s *Store) OutboxAttempt(ctx context.Context, duty string, errMsg string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx,
			`UPDATE outbox SET attempts = attempts + 1, last_error = ? WHERE duty = ?`, errMsg, duty)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if n == 0 {
			return ErrNotFound
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: outbox %s: %w", duty, err)
	}
	return nil
}

// querier is what *sql.DB and *sql.Tx share, so one scan serves both.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func queryOutbox(ctx context.Context, q querier, where string, args ...any) ([]OutboxItem, error) {
	rows, err := q.QueryContext(ctx,
		`SELECT duty, raw, created_at, attempts, sent_to, done, last_error FROM outbox `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []OutboxItem
	for rows.Next() {
		var (
			it   OutboxItem
			raw  []byte
			sent string
		)
		if err := rows.Scan(&it.Duty, &raw, &it.CreatedAt, &it.Attempts, &sent, &it.Done, &it.LastError); err != nil {
			return nil, err
		}
		if it.Event, err = nostr.ParseStored(raw); err != nil {
			return nil, fmt.Errorf("duty %s: %w", it.Duty, err)
		}
		if err := json.Unmarshal([]byte(sent), &it.SentTo); err != nil {
			return nil, fmt.Errorf("duty %s: sent_to: %w", it.Duty, err)
		}
		if len(it.SentTo) == 0 {
			it.SentTo = nil
		}
		out = append(out, it)
	}
	return out, rows.Err()
}

// FinalWithoutDuty returns up to limit final matches of game (by match id)
// that have no outbox duty named prefix+match: the ones a once-per-match
// duty (the NIP-64 record) has still to be recorded for.
func (s *Store) FinalWithoutDuty(ctx context.Context, game, prefix string, limit int) ([]string, error) {
	return s.FinalWithoutDutyOf(ctx, game, prefix, limit, nil)
}

// FinalWithoutDutyOf is FinalWithoutDuty for the matches whose two players
// are both among players (nil: any players).
func (s *Store) FinalWithoutDutyOf(ctx context.Context, game, prefix string, limit int, players []string) ([]string, error) {
	of := ""
	args := []any{game, prefix}
	if players != nil {
		list, err := json.Marshal(players)
		if err != nil {
			return nil, err
		}
		of = `AND s.first IN (SELECT value FROM json_each(?3)) AND s.second IN (SELECT value FROM json_each(?3))`
		args = append(args, string(list))
	} else {
		args = append(args, nil)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT s.match FROM summaries s
		WHERE s.final = 1 AND s.game = ?1 `+of+`
		  AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.duty = ?2 || s.match)
		ORDER BY s.match LIMIT ?4`, append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("store: final matches without %s: %w", prefix, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: final matches without %s: %w", prefix, err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// OutboxCountSince counts the duties named prefix... whose events are
// stamped after since: what an hourly budget of such duties has spent.
func (s *Store) OutboxCountSince(ctx context.Context, prefix string, since int64) (int, error) {
	if prefix == "" {
		return 0, errors.New("store: outbox count without a prefix")
	}
	// The range [prefix, prefix with its last byte + 1) is the duties
	// that start with prefix, and uses the duty index.
	end := prefix[:len(prefix)-1] + string(rune(prefix[len(prefix)-1]+1))
	var n int
	err := s.r.QueryRowContext(ctx,
		`SELECT count(*) FROM outbox WHERE duty >= ? AND duty < ? AND created_at > ?`, prefix, end, since).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: outbox %s since %d: %w", prefix, since, err)
	}
	return n, nil
}

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

// StoredEvent is an event as the store keeps it.
type StoredEvent struct {
	Event  *nostr.Event
	Raw    []byte   // the JSON of the first copy stored (Incoming.Raw)
	SeenAt int64    // unix seconds when this verifier first received it
	Relays []string // the relays that delivered it, sorted
}

// PutEvent stores a verified event once; later calls with the same id only
// add the relay. seen_at is kept from the first call. It reports whether
// the event was new.
func (s *Store) PutEvent(ctx context.Context, ev *nostr.Event, raw []byte, relay string, seenAt int64) (bool, error) {
	news, err := s.PutEvents(ctx, []Incoming{{Event: ev, Raw: raw, Relay: relay, SeenAt: seenAt}})
	if err != nil {
		return false, err
	}
	return news[0], nil
}

// PutEvents stores a batch in one transaction: all of it or, on error,
// none of it. news[i] reports whether batch[i] was new; an id that occurs
// twice in the batch is new only the first time.
func (s *Store) PutEvents(ctx context.Context, batch []Incoming) ([]bool, error) {
	rows := make([]incomingRow, len(batch))
	for i, in := range batch {
		r, err := in.row()
		if err != nil {
			if len(batch) == 1 {
				return nil, err
			}
			return nil, fmt.Errorf("%w (batch item %d)", err, i)
		}
		rows[i] = r
	}
	news := make([]bool, len(batch))
	if len(batch) == 0 {
		return news, nil
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		for i, r := range rows {
			n, err := s.putEvent(ctx, tx, r)
			if err != nil {
				return fmt.Errorf("event %s: %w", r.ev.ID, err)
			}
			news[i] = n
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: put events: %w", err)
	}
	return news, nil
}

func (s *Store) putEvent(ctx context.Context, tx *sql.Tx, r incomingRow) (bool, error) {
	ev := r.ev
	var seq int64
	isNew := true
	err := tx.StmtContext(ctx, s.st.insertEvent).QueryRowContext(ctx,
		ev.ID, ev.PubKey, ev.Kind, int64(ev.CreatedAt), r.seenAt, r.raw).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		isNew = false
		err = tx.StmtContext(ctx, s.st.eventSeq).QueryRowContext(ctx, ev.ID).Scan(&seq)
	}
	if err != nil {
		return false, err
	}
	if isNew {
		// Same id, same tags: only the first copy needs indexing.
		for _, m := range r.matches {
			if _, err := tx.StmtContext(ctx, s.st.insertMatch).ExecContext(ctx, m, seq); err != nil {
				return false, err
			}
			if _, err := tx.StmtContext(ctx, s.st.markDirty).ExecContext(ctx, m); err != nil {
				return false, err
			}
		}
	}
	if r.relay != "" {
		if _, err := tx.StmtContext(ctx, s.st.insertRelay).ExecContext(ctx, seq, r.relay); err != nil {
			return false, err
		}
	}
	return isNew, nil
}

// AddRelay records that relay delivered the stored event id, so an ingest
// loop can skip parsing and verifying a copy it already has. It reports
// whether the event is stored; if not, nothing is written.
func (s *Store) AddRelay(ctx context.Context, id, relay string) (bool, error) {
	known := false
	err := s.write(ctx, func(tx *sql.Tx) error {
		var seq int64
		err := tx.StmtContext(ctx, s.st.eventSeq).QueryRowContext(ctx, id).Scan(&seq)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		known = true
		if relay == "" {
			return nil
		}
		_, err = tx.StmtContext(ctx, s.st.insertRelay).ExecContext(ctx, seq, relay)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: add relay to %s: %w", id, err)
	}
	return known, nil
}

// MatchesOf returns the matches an event belongs to (PROTOCOL.md section
// 2): a challenge its own id; an accept, move, result, request, ruling or
// reveal (section 8.2, stored with the match though the fold skips it)
// every match its g tags name, each once, in tag order. Only 64-hex values
// can name a match (a match id is an event id); anything else names none.
func MatchesOf(ev *nostr.Event) []string {
	if ev == nil {
		return nil
	}
	if ev.Kind == nostr.KindChallenge {
		return []string{ev.ID}
	}
	if !nostr.IsStoredWithMatch(ev.Kind) {
		return nil
	}
	var out []string
	for _, m := range nostr.MatchRefs(ev) {
		if nostr.IsLowerHex(m, 64) && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// MatchEvents returns the match's challenge (when stored) first, then every
// stored event that belongs to the match by its g tags, by (created_at, id):
// the fold's order, though the fold sorts for itself.
func (s *Store) MatchEvents(ctx context.Context, match string) ([]StoredEvent, error) {
	rows, err := s.st.matchEvents.QueryContext(ctx, match)
	if err != nil {
		return nil, fmt.Errorf("store: match %s: %w", match, err)
	}
	out, err := scanStored(rows)
	if err != nil {
		return nil, fmt.Errorf("store: match %s: %w", match, err)
	}
	return out, nil
}

// Event returns one stored event by id.
func (s *Store) Event(ctx context.Context, id string) (StoredEvent, bool, error) {
	rows, err := s.st.eventByID.QueryContext(ctx, id)
	if err != nil {
		return StoredEvent{}, false, fmt.Errorf("store: event %s: %w", id, err)
	}
	out, err := scanStored(rows)
	if err != nil {
		return StoredEvent{}, false, fmt.Errorf("store: event %s: %w", id, err)
	}
	if len(out) == 0 {
		return StoredEvent{}, false, nil
	}
	return out[0], true, nil
}

// HasEvent reports whether an event is stored.
func (s *Store) HasEvent(ctx context.Context, id string) (bool, error) {
	var one int
	err := s.st.hasEvent.QueryRowContext(ctx, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: event %s: %w", id, err)
	}
	return true, nil
}

// MatchIDs returns the ids of all stored challenges, sorted. A challenge the
// fold finds invalid is still listed: the store does not judge.
func (s *Store) MatchIDs(ctx context.Context) ([]string, error) {
	rows, err := s.r.QueryContext(ctx,
		`SELECT id FROM events WHERE kind = ? ORDER BY id`, nostr.KindChallenge)
	if err != nil {
		return nil, fmt.Errorf("store: match ids: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: match ids: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: match ids: %w", err)
	}
	return ids, nil
}

// scanStored reads (id, raw, seen_at, relays JSON) rows and closes them.
func scanStored(rows *sql.Rows) ([]StoredEvent, error) {
	defer rows.Close()
	var out []StoredEvent
	for rows.Next() {
		var (
			id     string
			raw    []byte
			seenAt int64
			relays string
		)
		if err := rows.Scan(&id, &raw, &seenAt, &relays); err != nil {
			return nil, err
		}
		ev, err := nostr.ParseStored(raw)
		if err != nil {
			return nil, fmt.Errorf("stored event %s: %w", id, err)
		}
		if ev.ID != id {
			return nil, fmt.Errorf("stored event %s holds %s", id, ev.ID)
		}
		se := StoredEvent{Event: ev, Raw: raw, SeenAt: seenAt}
		if err := json.Unmarshal([]byte(relays), &se.Relays); err != nil {
			return nil, fmt.Errorf("stored event %s: relays: %w", id, err)
		}
		if len(se.Relays) == 0 {
			se.Relays = nil
		}
		slices.Sort(se.Relays)
		out = append(out, se)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// ChallengeRelays returns, for every stored challenge, the relays that
// delivered it (the hints of the match's nevent), at most max each.
func (s *Store) ChallengeRelays(ctx context.Context, max int) (map[string][]string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT e.id, r.relay FROM events e
		JOIN event_relays r ON r.event = e.seq WHERE e.kind = ? ORDER BY e.id, r.relay`, nostr.KindChallenge)
	if err != nil {
		return nil, fmt.Errorf("store: challenge relays: %w", err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var id, relay string
		if err := rows.Scan(&id, &relay); err != nil {
			return nil, fmt.Errorf("store: challenge relays: %w", err)
		}
		if len(out[id]) < max {
			out[id] = append(out[id], relay)
		}
	}
	return out, rows.Err()
}

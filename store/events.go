package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	"vesper/nostr"
)

// StoredEvent is an event as the store keeps it.
type StoredEvent struct {
	Event  *nostr.Event
	Raw    []byte   // the JSON of the first copy stored (Incoming.Raw)
	SeenAt int64    // unix seconds when this verifier first received it
	Relays []string // the relays that delivered it, sorted
}

// Incoming is one received event for PutEvents.
type Incoming struct {
	Event  *nostr.Event
	Raw    []byte // the JSON to keep; nil means nostr.MarshalEvent(Event)
	Relay  string // "" records no relay (an event the daemon made itself)
	SeenAt int64
	// Matches, when not nil, are the matches the event belongs to, in
	// place of MatchesOf(Event). Classify sets them.
	Matches []string

	// checked is the Event Classify checked (Raw and Matches set from
	// it): PutEvents and HoldChallenges check nothing of it again. An
	// Incoming whose Event was replaced since is checked again.
	checked *nostr.Event
}

// Classify checks an event for the store where it comes in (the daemon's
// ingest edge, issue 39 item 4: the one place its fields are checked and
// its matches derived), and returns it with Raw and Matches set: every
// later step reads those, and PutEvents and HoldChallenges take it as it
// is. The error says why the store would refuse it: a malformed id,
// pubkey, signature or match id, a negative seen_at, or Raw that does not
// hold the event.
func Classify(in Incoming) (Incoming, error) {
	r, err := checkIncoming(in)
	if err != nil {
		return in, err
	}
	in.Raw, in.Matches, in.checked = r.raw, r.matches, r.ev
	return in, nil
}

// Classified says whether in is as Classify returned it.
func (in Incoming) Classified() bool { return in.checked != nil && in.checked == in.Event }

// row is in as PutEvents writes it, checked unless Classify has.
func (in Incoming) row() (incomingRow, error) {
	if in.Classified() {
		return incomingRow{ev: in.Event, raw: in.Raw, relay: in.Relay, seenAt: in.SeenAt, matches: in.Matches}, nil
	}
	return checkIncoming(in)
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

type incomingRow struct {
	ev      *nostr.Event
	raw     []byte
	relay   string
	seenAt  int64
	matches []string
}

// checkIncoming makes sure what is written can be read back as the event
// the caller verified. Raw is written as given, so it must hold that
// event. Raw that is nostr.MarshalEvent(Event), and a nil Raw, for which
// the store writes that itself, is not parsed: it parses back to Event
// whenever readsBack(Event) holds, so only that is checked. Other bytes (a
// relay's own spelling of the event) are parsed, strictly as at ingest.
func checkIncoming(in Incoming) (incomingRow, error) {
	ev := in.Event
	if err := checkIDs(ev); err != nil {
		return incomingRow{}, err
	}
	if in.SeenAt < 0 {
		return incomingRow{}, fmt.Errorf("store: event %s: negative seen_at %d", ev.ID, in.SeenAt)
	}
	raw := in.Raw
	var marshaled []byte
	if err := readsBack(ev); err == nil {
		marshaled = nostr.MarshalEvent(ev)
	} else if raw == nil {
		return incomingRow{}, err
	}
	if marshaled != nil && (raw == nil || bytes.Equal(raw, marshaled)) {
		raw = marshaled
	} else {
		parsed, err := nostr.ParseEvent(raw)
		if err != nil {
			return incomingRow{}, fmt.Errorf("store: event %s: raw: %w", ev.ID, err)
		}
		if !sameEvent(parsed, ev) {
			return incomingRow{}, fmt.Errorf("store: event %s: raw bytes hold another event (%s)", ev.ID, parsed.ID)
		}
	}
	matches := in.Matches
	if matches == nil {
		matches = MatchesOf(ev) // 64-hex, each once, by construction
	}
	for _, m := range in.Matches {
		if !nostr.IsLowerHex(m, 64) {
			return incomingRow{}, fmt.Errorf("store: event %s: malformed match id %q", ev.ID, m)
		}
	}
	return incomingRow{ev: ev, raw: raw, relay: in.Relay, seenAt: in.SeenAt, matches: matches}, nil
}

// readsBack says why nostr.MarshalEvent(ev) would not parse back to ev, if
// it would not, for an event that passed checkIDs: nostr.ParseEvent takes
// created_at without a sign and at most nostr.MaxCreatedAt, and reads invalid UTF-8 as U+FFFD. Every
// event nostr.ParseEvent returns passes.
func readsBack(ev *nostr.Event) error {
	if !nostr.CreatedAtInRange(ev.CreatedAt) {
		return fmt.Errorf("store: event %s: created_at %d outside 0..%d", ev.ID, ev.CreatedAt, nostr.MaxCreatedAt)
	}
	if !utf8.ValidString(ev.Content) {
		return fmt.Errorf("store: event %s: content is not UTF-8", ev.ID)
	}
	for i, t := range ev.Tags {
		for _, v := range t {
			if !utf8.ValidString(v) {
				return fmt.Errorf("store: event %s: tag %d is not UTF-8", ev.ID, i)
			}
		}
	}
	return nil
}

// sameEvent compares every field: bytes with the event's id and signature
// but, say, another content would be read back as an event whose id is
// not its hash.
func sameEvent(a, b *nostr.Event) bool {
	if a.ID != b.ID || a.PubKey != b.PubKey || a.Sig != b.Sig || a.Kind != b.Kind ||
		a.CreatedAt != b.CreatedAt || a.Content != b.Content || len(a.Tags) != len(b.Tags) {
		return false
	}
	for i := range a.Tags {
		if !slices.Equal(a.Tags[i], b.Tags[i]) {
			return false
		}
	}
	return true
}

// checkIDs rejects what cannot be a verified event, so a caller's slip does
// not end up as a row that every later reader trips over.
func checkIDs(ev *nostr.Event) error {
	switch {
	case ev == nil:
		return errors.New("store: nil event")
	case !nostr.IsLowerHex(ev.ID, 64):
		return fmt.Errorf("store: malformed event id %q", ev.ID)
	case !nostr.IsLowerHex(ev.PubKey, 64):
		return fmt.Errorf("store: event %s: malformed pubkey %q", ev.ID, ev.PubKey)
	case !nostr.IsLowerHex(ev.Sig, 128):
		return fmt.Errorf("store: event %s: unsigned", ev.ID)
	}
	return nil
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

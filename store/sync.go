package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"vesper/nostr"
)

// The queries of the relay sync (nostr/relay.Sync): the (created_at, id)
// sets it reconciles with NIP-77, the matches its fallback asks about, which
// ids are already stored, and per-relay marks of completed syncs.

// Stamp is a stored event's id and created_at, the pair NIP-77 compares.
type Stamp struct {
	ID        string
	CreatedAt int64
}

// indexCacheKiB is the writer's page cache while PrepareSync builds
// stampsIndex.
const indexCacheKiB = 8 << 10

// indexBuildHook, set by a test, sees the writer's transaction just
// before PrepareSync builds the index.
var indexBuildHook func(*sql.Tx)

// stampsIndex covers Stamps: without it the query reads every row of
// events (raw included) to get created_at, most of the file; with it, an
// index of about 80 bytes an event.
const stampsIndex = `CREATE INDEX IF NOT EXISTS events_kind_stamp ON events(kind, created_at, id)`

// PrepareSync creates, if missing, the index and table the sync's queries
// use. They are made here rather than by a migration step so that the sync
// needs no schema version of its own; on a large store the first call
// takes seconds (the index is built once). Stamps and SyncMark work
// without it, only slower (Stamps) or reading 0 (SyncMark).
//
// The index is built with the writer's page cache at indexCacheKiB: SQLite
// sizes the sort of CREATE INDEX by the cache, and at the writer's own
// (writerCacheKiB) the cache filled with the events table while the sort
// held as much again, so that the first start on a store without the
// index stood at nearly 200 MB at 10,000 matches (issue 38). A smaller
// sort spills to temporary files instead.
func (s *Store) PrepareSync(ctx context.Context) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		for _, q := range []string{syncMarksTable, fmt.Sprintf("PRAGMA cache_size = %d", -indexCacheKiB)} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		if indexBuildHook != nil {
			indexBuildHook(tx)
		}
		_, err := tx.ExecContext(ctx, stampsIndex)
		// The writer's cache back, whatever came of the build (a pragma
		// outlives the transaction).
		if _, rerr := tx.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf("PRAGMA cache_size = %d", -writerCacheKiB)); err == nil {
			err = rerr
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("store: prepare sync: %w", err)
	}
	return nil
}

// Stamps returns the id and created_at of every stored event of kinds.
func (s *Store) Stamps(ctx context.Context, kinds []int) ([]Stamp, error) {
	return s.StampsIn(ctx, kinds, StampWindow{})
}

func stampsQuery(kinds int, indexed bool) string {
	from := "events"
	if indexed {
		from += " INDEXED BY events_kind_stamp"
	}
	return `SELECT id, created_at FROM ` + from + ` WHERE kind IN (` + placeholders(kinds) + `)`
}

// OpenMatches returns, sorted, the matches a sync must ask every relay
// about: those whose summary is not final, and those that stored events
// name but whose challenge is not stored (a relay revealed them and the
// challenge is still to be found).
func (s *Store) OpenMatches(ctx context.Context) ([]string, error) {
	rows, err := s.r.QueryContext(ctx,
		`SELECT match FROM summaries WHERE final = 0
		 UNION
		 SELECT d.match FROM (SELECT DISTINCT match FROM event_matches) d
		 WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.id = d.match AND e.kind = ?)
		 ORDER BY 1`, nostr.KindChallenge)
	if err != nil {
		return nil, fmt.Errorf("store: open matches: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: open matches: %w", err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: open matches: %w", err)
	}
	return out, nil
}

// LiveMatches is OpenMatches less the matches a periodic sync need not
// ask about by name (issue 38): those d says are dormant and the expired
// challenges. Their number follows what is being played, not every game
// ever abandoned; SettledOpen hands out the others a few at a time.
func (s *Store) LiveMatches(ctx context.Context, d Dormancy) ([]string, error) {
	ids, err := s.column(ctx,
		`SELECT match FROM summaries INDEXED BY summaries_open
		 WHERE final = 0 AND status != 'expired' AND NOT `+dormantSQL+`
		 UNION
		 SELECT d.match FROM (SELECT DISTINCT match FROM event_matches) d
		 WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.id = d.match AND e.kind = ?4)
		 ORDER BY 1`, d.Before, d.Self, d.Arbiter, nostr.KindChallenge)
	if err != nil {
		return nil, fmt.Errorf("store: live matches: %w", err)
	}
	return ids, nil
}

// SettledOpen returns, in id order, up to limit of the matches that are
// in OpenMatches and not in LiveMatches (dormant by d, or expired
// challenges), after the id after: a sync walks them a slice at a time.
func (s *Store) SettledOpen(ctx context.Context, d Dormancy, after string, limit int) ([]string, error) {
	ids, err := s.column(ctx,
		`SELECT match FROM summaries INDEXED BY summaries_open
		 WHERE final = 0 AND (status = 'expired' OR `+dormantSQL+`) AND match > ?4
		 ORDER BY match LIMIT ?5`, d.Before, d.Self, d.Arbiter, after, limit)
	if err != nil {
		return nil, fmt.Errorf("store: settled open matches: %w", err)
	}
	return ids, nil
}

// knownChunk bounds the parameters of one query (SQLite allows 32766).
const knownChunk = 500

// KnownIDs reports which of ids are stored events.
func (s *Store) KnownIDs(ctx context.Context, ids []string) (map[string]bool, error) {
	out := make(map[string]bool, len(ids))
	for start := 0; start < len(ids); start += knownChunk {
		chunk := ids[start:min(start+knownChunk, len(ids))]
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		rows, err := s.r.QueryContext(ctx, `SELECT id FROM events WHERE id IN (`+placeholders(len(chunk))+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("store: known ids: %w", err)
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, fmt.Errorf("store: known ids: %w", err)
			}
			out[id] = true
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("store: known ids: %w", err)
		}
	}
	return out, nil
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// Sync marks: what a relay sync completed, and when (unix seconds of our
// clock). The table is created on first write rather than by a migration
// step, so that it needs no schema version of its own; a store without it
// reads every mark as 0.
const syncMarksTable = `CREATE TABLE IF NOT EXISTS sync_marks (
	relay TEXT    NOT NULL,
	what  TEXT    NOT NULL,
	at    INTEGER NOT NULL,
	PRIMARY KEY (relay, what)
) WITHOUT ROWID`

// Kinds of sync mark.
const (
	SyncMarkDone     = "sync"      // a sync of the relay completed
	SyncMarkFullScan = "full_scan" // a full scan of the relay's challenges completed
)

// SyncMark returns when what last completed for relay, 0 if never.
func (s *Store) SyncMark(ctx context.Context, relay, what string) (int64, error) {
	var at int64
	err := s.r.QueryRowContext(ctx, `SELECT at FROM sync_marks WHERE relay = ? AND what = ?`, relay, what).Scan(&at)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, nil
	case err != nil && strings.Contains(err.Error(), "no such table"):
		return 0, nil
	case err != nil:
		return 0, fmt.Errorf("store: sync mark %s of %s: %w", what, relay, err)
	}
	return at, nil
}

// SetSyncMark records that what completed for relay at at.
func (s *Store) SetSyncMark(ctx context.Context, relay, what string, at int64) error {
	if relay == "" || what == "" {
		return errors.New("store: sync mark without a relay or a name")
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, syncMarksTable); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx,
			`INSERT INTO sync_marks (relay, what, at) VALUES (?, ?, ?)
			 ON CONFLICT (relay, what) DO UPDATE SET at = max(at, excluded.at)`, relay, what, at)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: sync mark %s of %s: %w", what, relay, err)
	}
	return nil
}

// StampWindow is a created_at range [Since, Until], both inclusive; zero
// leaves that end open.
type StampWindow struct {
	Since, Until int64
}

// StampWindows splits the created_at line into consecutive windows that
// each hold about max stored events of kinds (whole hours, so an hour
// with more stays one window): a reconciliation window by window holds one
// window's ids in memory, not the history's. The first window is open
// below and the last above, so together they cover every created_at.
func (s *Store) StampWindows(ctx context.Context, kinds []int, max int) ([]StampWindow, error) {
	if len(kinds) == 0 || max <= 0 {
		return []StampWindow{{}}, nil
	}
	// One kind at a time: each is read in the index's (kind, created_at)
	// order and grouped as it streams, where all kinds at once would sort
	// every row in memory first.
	counts := map[int64]int{}
	for _, k := range kinds {
		q := func(indexed bool) string {
			from := "events"
			if indexed {
				from += " INDEXED BY events_kind_stamp"
			}
			return `SELECT created_at / 3600, count(*) FROM ` + from + ` WHERE kind = ? GROUP BY 1`
		}
		rows, err := s.r.QueryContext(ctx, q(true), k)
		if err != nil && strings.Contains(err.Error(), "no such index") {
			rows, err = s.r.QueryContext(ctx, q(false), k)
		}
		if err != nil {
			return nil, fmt.Errorf("store: stamp windows: %w", err)
		}
		for rows.Next() {
			var hour int64
			var n int
			if err := rows.Scan(&hour, &n); err != nil {
				rows.Close()
				return nil, fmt.Errorf("store: stamp windows: %w", err)
			}
			counts[hour] += n
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("store: stamp windows: %w", err)
		}
	}
	hours := make([]int64, 0, len(counts))
	for h := range counts {
		hours = append(hours, h)
	}
	slices.Sort(hours)
	var out []StampWindow
	cur, count := StampWindow{}, 0
	for _, hour := range hours {
		n := counts[hour]
		if count > 0 && count+n > max {
			cur.Until = hour*3600 - 1
			out = append(out, cur)
			cur, count = StampWindow{Since: hour * 3600}, 0
		}
		count += n
	}
	return append(out, cur), nil
}

// StampsIn is Stamps within a window.
func (s *Store) StampsIn(ctx context.Context, kinds []int, w StampWindow) ([]Stamp, error) {
	if len(kinds) == 0 {
		return nil, nil
	}
	args := make([]any, 0, len(kinds)+2)
	for _, k := range kinds {
		args = append(args, k)
	}
	cond := ""
	if w.Since > 0 {
		cond += " AND created_at >= ?"
		args = append(args, w.Since)
	}
	if w.Until > 0 {
		cond += " AND created_at <= ?"
		args = append(args, w.Until)
	}
	// The planner, without statistics, prefers events_kind_id, which
	// leaves created_at to be read from every row.
	rows, err := s.r.QueryContext(ctx, stampsQuery(len(kinds), true)+cond, args...)
	if err != nil && strings.Contains(err.Error(), "no such index") {
		rows, err = s.r.QueryContext(ctx, stampsQuery(len(kinds), false)+cond, args...)
	}
	if err != nil {
		return nil, fmt.Errorf("store: stamps: %w", err)
	}
	defer rows.Close()
	var out []Stamp
	for rows.Next() {
		var st Stamp
		if err := rows.Scan(&st.ID, &st.CreatedAt); err != nil {
			return nil, fmt.Errorf("store: stamps: %w", err)
		}
		out = append(out, st)
	}
	return out, rows.Err()
}

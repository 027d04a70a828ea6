package relayd

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/fiatjaf/eventstore"
	gn "github.com/nbd-wtf/go-nostr"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, pure Go
)

// sqliteStore keeps events in one SQLite file: the event as JSON plus the
// columns queries select on, and a table of (name, value) tag pairs for
// "#x" filters. One connection serialises writers, which is plenty for a
// test and development relay and avoids SQLITE_BUSY.
type sqliteStore struct {
	db       *sql.DB
	maxLimit int
}

var _ eventStore = (*sqliteStore)(nil)

var sqliteSchema = []string{
	`CREATE TABLE IF NOT EXISTS events (
		id TEXT PRIMARY KEY,
		pubkey TEXT NOT NULL,
		created_at INTEGER NOT NULL,
		kind INTEGER NOT NULL,
		raw BLOB NOT NULL)`,
	`CREATE INDEX IF NOT EXISTS events_time ON events(created_at DESC, id)`,
	`CREATE INDEX IF NOT EXISTS events_kind ON events(kind, created_at DESC)`,
	`CREATE INDEX IF NOT EXISTS events_pubkey ON events(pubkey, created_at DESC)`,
	`CREATE TABLE IF NOT EXISTS tags (
		event_id TEXT NOT NULL,
		name TEXT NOT NULL,
		value TEXT NOT NULL)`,
	`CREATE INDEX IF NOT EXISTS tags_name_value ON tags(name, value)`,
	`CREATE INDEX IF NOT EXISTS tags_event ON tags(event_id)`,
}

func openSQLiteStore(path string, maxLimit int) (*sqliteStore, error) {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return nil, fmt.Errorf("relayd: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	s := &sqliteStore{db: db, maxLimit: maxLimit}
	if err := s.Init(); err != nil {
		db.Close()
		return nil, fmt.Errorf("relayd: %s: %w", path, err)
	}
	return s, nil
}

func (s *sqliteStore) Init() error {
	for _, stmt := range append([]string{
		`PRAGMA journal_mode=WAL`,
		`PRAGMA busy_timeout=5000`,
		`PRAGMA synchronous=NORMAL`,
	}, sqliteSchema...) {
		if _, err := s.db.Exec(stmt); err != nil {
			return err
		}
	}
	return nil
}

func (s *sqliteStore) Close() { s.db.Close() }

func (s *sqliteStore) Has(ctx context.Context, id string) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM events WHERE id = ?`, id).Scan(&n)
	return n > 0, err
}

func (s *sqliteStore) Len(ctx context.Context) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM events`).Scan(&n)
	return n, err
}

func (s *sqliteStore) QueryEvents(ctx context.Context, f gn.Filter) (chan *gn.Event, error) {
	limit := queryLimit(ctx, f, s.maxLimit)
	if limit == 0 {
		return resultChan(nil), nil
	}
	q, args, ok := buildSelect(f, limit)
	if !ok {
		return resultChan(nil), nil
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("error: query failed: %w", err)
	}
	defer rows.Close()
	var out []*gn.Event
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			return nil, fmt.Errorf("error: query failed: %w", err)
		}
		ev := &gn.Event{}
		if err := ev.UnmarshalJSON(raw); err != nil {
			continue
		}
		// SQL narrowed the rows; the filter has the last word (tag names
		// with several letters, repeated tag conditions).
		if f.Matches(ev) {
			out = append(out, ev)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("error: query failed: %w", err)
	}
	return resultChan(out), nil
}

// buildSelect turns a filter into SQL. ok is false when the filter cannot
// match anything (an empty ids, authors or kinds list).
func buildSelect(f gn.Filter, limit int) (q string, args []any, ok bool) {
	var c conds
	if !c.fields(f) {
		return "", nil, false
	}
	drive, ok := c.tags(f)
	if !ok {
		return "", nil, false
	}
	q, args = "SELECT raw FROM events", c.args
	if drive != nil {
		// A tag condition drives the query (CROSS JOIN keeps tags the outer
		// loop): otherwise SQLite walks every event of the kinds in time
		// order to honour ORDER BY ... LIMIT, checking each against the
		// tag, which makes a "#g" page cost the whole store.
		q = "SELECT raw FROM (SELECT DISTINCT event_id FROM tags WHERE name = ? AND value IN (" +
			placeholders(len(drive)-1) + ")) t CROSS JOIN events ON events.id = t.event_id"
		args = append(drive, args...)
	}
	if len(c.where) > 0 {
		q += " WHERE " + strings.Join(c.where, " AND ")
	}
	q += " ORDER BY created_at DESC, id ASC LIMIT ?"
	args = append(args, limit)
	return q, args, true
}

// conds is a query's WHERE conditions and their arguments, in order.
type conds struct {
	where []string
	args  []any
}

func (c *conds) add(cond string, args ...any) {
	c.where = append(c.where, cond)
	c.args = append(c.args, args...)
}

func (c *conds) in(col string, vals []any) {
	c.add(col+" IN ("+placeholders(len(vals))+")", vals...)
}

// fields adds the conditions on ids, authors, kinds and the time range;
// false when an empty list means nothing can match.
func (c *conds) fields(f gn.Filter) bool {
	if f.IDs != nil {
		if len(f.IDs) == 0 {
			return false
		}
		c.in("id", anySlice(f.IDs))
	}
	if f.Authors != nil {
		if len(f.Authors) == 0 {
			return false
		}
		c.in("pubkey", anySlice(f.Authors))
	}
	if f.Kinds != nil {
		if len(f.Kinds) == 0 {
			return false
		}
		vals := make([]any, len(f.Kinds))
		for i, k := range f.Kinds {
			vals[i] = k
		}
		c.in("kind", vals)
	}
	if f.Since != nil {
		c.add("created_at >= ?", int64(*f.Since))
	}
	if f.Until != nil {
		c.add("created_at <= ?", int64(*f.Until))
	}
	return true
}

// tags adds the tag conditions, in name order, but the first one when the
// filter has no ids: that one (name, then values) is returned as drive, to
// drive the query. ok is false when an empty list means nothing can match.
func (c *conds) tags(f gn.Filter) (drive []any, ok bool) {
	names := make([]string, 0, len(f.Tags))
	for name := range f.Tags {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		vals := f.Tags[name]
		if vals == nil {
			continue
		}
		if len(vals) == 0 {
			return nil, false
		}
		if drive == nil && f.IDs == nil {
			drive = append([]any{name}, anySlice(vals)...)
			continue
		}
		c.add("id IN (SELECT event_id FROM tags WHERE name = ? AND value IN ("+placeholders(len(vals))+"))",
			append([]any{name}, anySlice(vals)...)...)
	}
	return drive, true
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

func anySlice(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func (s *sqliteStore) SaveEvent(ctx context.Context, ev *gn.Event) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := insertTx(ctx, tx, ev); err != nil {
		return err
	}
	return tx.Commit()
}

func insertTx(ctx context.Context, tx *sql.Tx, ev *gn.Event) error {
	raw, err := ev.MarshalJSON()
	if err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx,
		`INSERT OR IGNORE INTO events (id, pubkey, created_at, kind, raw) VALUES (?, ?, ?, ?, ?)`,
		ev.ID, ev.PubKey, int64(ev.CreatedAt), ev.Kind, raw)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return eventstore.ErrDupEvent
	}
	for _, t := range ev.Tags {
		if len(t) < 2 {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO tags (event_id, name, value) VALUES (?, ?, ?)`, ev.ID, t[0], t[1]); err != nil {
			return err
		}
	}
	return nil
}

func deleteTx(ctx context.Context, tx *sql.Tx, id string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM tags WHERE event_id = ?`, id); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM events WHERE id = ?`, id)
	return err
}

func (s *sqliteStore) DeleteEvent(ctx context.Context, ev *gn.Event) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := deleteTx(ctx, tx, ev.ID); err != nil {
		return err
	}
	return tx.Commit()
}

func (s *sqliteStore) ReplaceEvent(ctx context.Context, ev *gn.Event) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT raw FROM events WHERE kind = ? AND pubkey = ?`, ev.Kind, ev.PubKey)
	if err != nil {
		return err
	}
	var older []string
	keep := true
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			rows.Close()
			return err
		}
		cur := &gn.Event{}
		if cur.UnmarshalJSON(raw) != nil || !sameAddress(cur, ev) {
			continue
		}
		if cur.ID == ev.ID {
			rows.Close()
			return eventstore.ErrDupEvent
		}
		if supersedes(ev, cur) {
			older = append(older, cur.ID)
		} else {
			keep = false
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if !keep {
		return nil
	}
	for _, id := range older {
		if err := deleteTx(ctx, tx, id); err != nil {
			return err
		}
	}
	if err := insertTx(ctx, tx, ev); err != nil && !errors.Is(err, eventstore.ErrDupEvent) {
		return err
	}
	return tx.Commit()
}

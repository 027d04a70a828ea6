package store

import (
	"context"
	"database/sql"
	"fmt"
)

// stmts are the statements on the hot paths (ingest and match reads),
// prepared once: with modernc, parsing a statement costs about as much as
// running it. database/sql prepares each again on every pool connection
// that runs it, and Tx.StmtContext reuses the writer's copy.
type stmts struct {
	insertEvent, eventSeq, insertMatch, insertRelay, markDirty, clearDirty *sql.Stmt // writer
	matchEvents, matchEventsSeen, eventByID, hasEvent                      *sql.Stmt // readers
	all                                                                    []*sql.Stmt
}

const selectStored = `SELECT e.id, e.raw, e.seen_at,
	(SELECT json_group_array(relay) FROM event_relays WHERE event = e.seq)`

func (st *stmts) prepare(ctx context.Context, w, r *sql.DB) error {
	for _, p := range []struct {
		dst *(*sql.Stmt)
		db  *sql.DB
		q   string
	}{
		{&st.insertEvent, w, `INSERT INTO events (id, pubkey, kind, created_at, seen_at, raw)
			VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO NOTHING
			RETURNING seq`},
		{&st.eventSeq, w, `SELECT seq FROM events WHERE id = ?`},
		{&st.insertMatch, w, `INSERT OR IGNORE INTO event_matches (match, event) VALUES (?, ?)`},
		{&st.markDirty, w, `INSERT OR IGNORE INTO dirty (match) VALUES (?)`},
		{&st.clearDirty, w, `DELETE FROM dirty WHERE match = ?`},
		{&st.insertRelay, w, `INSERT OR IGNORE INTO event_relays (event, relay) VALUES (?, ?)`},
		{&st.matchEvents, r, selectStored + `
			FROM event_matches m JOIN events e ON e.seq = m.event
			WHERE m.match = ?1
			ORDER BY e.id = ?1 DESC, e.created_at, e.id`},
		// In the key's order, not the fold's: MatchEventsSeen sorts in Go,
		// which costs SQLite no temporary b-tree of whole rows.
		{&st.matchEventsSeen, r, `SELECT e.id, e.raw, e.seen_at, e.created_at
			FROM event_matches m JOIN events e ON e.seq = m.event
			WHERE m.match = ?`},
		{&st.eventByID, r, selectStored + ` FROM events e WHERE e.id = ?`},
		{&st.hasEvent, r, `SELECT 1 FROM events WHERE id = ?`},
	} {
		if p.db == nil {
			continue // read-only: no writer
		}
		stmt, err := p.db.PrepareContext(ctx, p.q)
		if err != nil {
			return fmt.Errorf("prepare: %w", err)
		}
		*p.dst = stmt
		st.all = append(st.all, stmt)
	}
	return nil
}

func (st *stmts) close() {
	for _, s := range st.all {
		s.Close()
	}
	st.all = nil
}

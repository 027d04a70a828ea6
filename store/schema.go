package store

import (
	"context"
	"database/sql"
	"fmt"
)

// applicationID marks a SQLite file as a vesper store (PRAGMA
// application_id; the bytes spell "vspr"), so Open refuses to migrate some
// other program's database that happens to sit at the configured path.
const applicationID = 0x76737072

// A migration takes the schema from version-1 to version. Steps are
// append-only: a released step is never edited, a change is a new step.
type migration struct {
	version int
	stmts   []string
}

// migrations is the schema history, oldest first.
var migrations = []migration{
	{version: 1, stmts: []string{
		// seq gives each event a small key for the index tables; raw can
		// be 64 KiB, which rules out a WITHOUT ROWID table keyed by id.
		`CREATE TABLE events (
			seq        INTEGER PRIMARY KEY,
			id         TEXT    NOT NULL UNIQUE,
			pubkey     TEXT    NOT NULL,
			kind       INTEGER NOT NULL,
			created_at INTEGER NOT NULL,
			seen_at    INTEGER NOT NULL,
			raw        BLOB    NOT NULL
		)`,
		// Covers MatchIDs (the challenges, by id) and Stats.
		`CREATE INDEX events_kind_id ON events(kind, id)`,
		`CREATE TABLE event_relays (
			event INTEGER NOT NULL,
			relay TEXT    NOT NULL,
			PRIMARY KEY (event, relay)
		) WITHOUT ROWID`,
		`CREATE TABLE event_matches (
			match TEXT    NOT NULL,
			event INTEGER NOT NULL,
			PRIMARY KEY (match, event)
		) WITHOUT ROWID`,
		`CREATE TABLE summaries (
			match      TEXT PRIMARY KEY,
			game       TEXT    NOT NULL,
			first      TEXT    NOT NULL,
			second     TEXT    NOT NULL,
			status     TEXT    NOT NULL,
			final      INTEGER NOT NULL,
			updated_at INTEGER NOT NULL,
			json       BLOB    NOT NULL
		)`,
		`CREATE INDEX summaries_first ON summaries(first)`,
		`CREATE INDEX summaries_second ON summaries(second)`,
		`CREATE TABLE cursors (
			relay      TEXT PRIMARY KEY,
			created_at INTEGER NOT NULL
		) WITHOUT ROWID`,
		`CREATE TABLE profiles (
			pubkey     TEXT PRIMARY KEY,
			id         TEXT    NOT NULL,
			created_at INTEGER NOT NULL,
			raw        BLOB    NOT NULL
		)`,
		// seq is the order duties were recorded, which is the order they
		// are published (a move at ply 3 before the one at ply 5).
		`CREATE TABLE outbox (
			seq        INTEGER PRIMARY KEY,
			duty       TEXT    NOT NULL UNIQUE,
			event_id   TEXT    NOT NULL,
			raw        BLOB    NOT NULL,
			created_at INTEGER NOT NULL,
			attempts   INTEGER NOT NULL DEFAULT 0,
			sent_to    TEXT    NOT NULL DEFAULT '[]',
			done       INTEGER NOT NULL DEFAULT 0,
			last_error TEXT    NOT NULL DEFAULT ''
		)`,
		`CREATE INDEX outbox_pending ON outbox(done, seq)`,
	}},
	{version: 2, stmts: []string{
		// The per-author quotas count an author's recent challenges and
		// events (OpenChallenges, AuthorEvents).
		`CREATE INDEX events_author ON events(pubkey, kind, created_at)`,
		// Prune finds an event's matches, and deletes by event.
		`CREATE INDEX event_matches_event ON event_matches(event)`,
	}},
	{version: 3, stmts: []string{
		// A daemon resumes from the summaries (issue 16): each says which
		// fold wrote it, so that an upgrade re-folds what an older fold
		// wrote, and the open ones are all a start folds.
		`ALTER TABLE summaries ADD COLUMN fold_version INTEGER NOT NULL DEFAULT 0`,
		`CREATE INDEX summaries_open ON summaries(match) WHERE final = 0`,
		`CREATE INDEX summaries_fold_version ON summaries(fold_version)`,
		// dirty lists the matches whose stored events are newer than their
		// summary: PutEvents adds to it in the transaction that stores the
		// events, PutSummaries takes away. A crash between the two leaves
		// the mark, and the next start folds the match.
		`CREATE TABLE dirty (match TEXT PRIMARY KEY) WITHOUT ROWID`,
		`INSERT OR IGNORE INTO dirty (match)
		 SELECT DISTINCT m.match FROM event_matches m
		 WHERE NOT EXISTS (SELECT 1 FROM summaries s WHERE s.match = m.match)`,
	}},
	{version: 4, stmts: []string{
		// Move analysis (issue 18): one row per graded match, json its
		// analysis.json, status "done" or "failed".
		`CREATE TABLE analyses (
			match      TEXT PRIMARY KEY,
			status     TEXT    NOT NULL,
			engine     TEXT    NOT NULL,
			json       BLOB    NOT NULL,
			updated_at INTEGER NOT NULL
		)`,
	}},
	{version: 5, stmts: []string{
		// Abandoned games (issue 28): idle_since is when an accepted
		// match that is not final last saw anything happen, its deadline
		// (the pending clock's run-out, or the end + 24 h) or its last
		// event, whichever is later (0: a match that never goes dormant);
		// requested says it has a valid arbitration request, which keeps
		// it for an arbiter. A start leaves out the matches idle for
		// longer than the daemon's grace. Summaries written before this
		// step say 0, so the first start folds them as before and writes
		// both.
		`ALTER TABLE summaries ADD COLUMN idle_since INTEGER NOT NULL DEFAULT 0`,
		`ALTER TABLE summaries ADD COLUMN requested INTEGER NOT NULL DEFAULT 0`,
	}},
}

// SchemaVersion is the version this build writes: the last migration's
// (a test keeps the two in step).
const SchemaVersion = 5

// migrate applies the steps newer than the file's version. Each step runs
// in a write transaction that also reads the version, so two processes
// opening a new file at once apply every step exactly once.
func migrate(ctx context.Context, db *sql.DB, steps []migration) error {
	for i, m := range steps {
		if m.version != i+1 {
			return fmt.Errorf("migration %d has version %d", i+1, m.version)
		}
	}
	version, err := checkFile(ctx, db, len(steps))
	if err != nil {
		return err
	}
	// WAL is recorded in the file, so it is set here, once the file is
	// known to be ours or new, rather than on every connection.
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode); err != nil {
		return fmt.Errorf("journal mode: %w", err)
	}
	if mode != "wal" {
		return fmt.Errorf("journal mode is %q, not wal", mode)
	}
	for _, m := range steps {
		if m.version <= version {
			continue
		}
		if err := step(ctx, db, m); err != nil {
			return err
		}
	}
	return nil
}

// checkFile refuses a file that is not ours or is newer than this build,
// before anything is written to it.
func checkFile(ctx context.Context, db *sql.DB, latest int) (version int, err error) {
	var app int
	if err := db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&app); err != nil {
		return 0, fmt.Errorf("not a SQLite database: %w", err)
	}
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return 0, err
	}
	if app != 0 && app != applicationID {
		return 0, fmt.Errorf("not a vesper store (application_id %#x)", app)
	}
	if app == 0 && version != 0 {
		return 0, fmt.Errorf("not a vesper store (user_version %d without vesper's application_id)", version)
	}
	if version == 0 {
		var tables int
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&tables); err != nil {
			return 0, err
		}
		if tables > 0 {
			return 0, fmt.Errorf("not a vesper store (%d schema objects and no version)", tables)
		}
	}
	if version > latest {
		return 0, fmt.Errorf("schema version %d is newer than this vesper (%d): upgrade vesper", version, latest)
	}
	return version, nil
}

func step(ctx context.Context, db *sql.DB, m migration) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var version int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return err
	}
	if version >= m.version {
		return nil
	}
	if version == 0 {
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", applicationID)); err != nil {
			return err
		}
	}
	for _, q := range m.stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("migration %d: %w", m.version, err)
		}
	}
	// PRAGMA takes no bound parameters; the version is our own integer.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.version)); err != nil {
		return err
	}
	return tx.Commit()
}

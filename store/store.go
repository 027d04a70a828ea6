package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"vesper/internal/pause"
	"vesper/nostr"

	// The pure-Go SQLite driver, registered as "sqlite".
	_ "modernc.org/sqlite"
)

// ErrReadOnly is wrapped in the error of every write to a store opened
// with OpenReadOnly.
var ErrReadOnly = errors.New("opened read-only")

// ErrNotFound is wrapped in the error of an operation on a row that does
// not exist (an outbox duty that was never added).
var ErrNotFound = errors.New("not found")

// busyTimeoutMS is how long a connection waits for another one's lock (a
// second process writing, a checkpoint) before giving up with SQLITE_BUSY.
const busyTimeoutMS = 10000

// readers is the size of the query-only pool. The machines are small; four
// lets the site, the CLI and the daemon's own re-folds read at once.
const readers = 4

// Page cache per connection (SQLite's default is 2 MiB). The writer's
// inserts touch the events, relay and match indexes all over the file; a
// bigger cache saves a read(2) per page visit.
const (
	writerCacheKiB = 32 << 10
	readerCacheKiB = 8 << 10
)

// readOnlyMmapBytes is how much of the file a read-only store (the CLI's:
// `vesper site build` reads every stored event) maps into memory instead of
// copying each page it visits with pread(2): a full site build of 10,000
// matches spent about a tenth of its store reads in those copies. SQLite
// caps it at 0x7fff0000; pages past it are read as before. The daemon's
// own readers keep pread, so that its resident memory stays its own heap.
// Mapping is safe here because no vesper writer ever shrinks the file (no
// VACUUM), the one case where a mapped read would fault.
const readOnlyMmapBytes = 2 << 30

// Checkpoints (copying the WAL back into the database file, with an fsync)
// run on a connection of their own, every checkpointEvery while there were
// writes: a commit that had to checkpoint would wait tens of milliseconds
// on this machine's disk. The writer still checkpoints by itself once the
// WAL holds writerCheckpointPages pages (about 40 MB), should the
// background ones fall behind.
const (
	checkpointEvery       = time.Second
	writerCheckpointPages = 10000
)

// Store is an open store file. Use Open; the zero value is not usable.
type Store struct {
	path string
	w    *sql.DB // exactly one connection: the only writer in this process; nil if read-only
	r    *sql.DB // query-only pool
	st   stmts

	synced atomic.Int64 // commits made with synchronous=FULL, for tests

	ck           *sql.DB            // the background checkpointer's connection
	writes       atomic.Int64       // write commits so far
	checkpoints  atomic.Int64       // checkpoints that copied frames, for tests
	checkpointed int64              // writes at the last checkpoint; the checkpointer's own
	stop         context.CancelFunc // ends the checkpointer, for Close
	stopped      chan struct{}      // closed when the checkpointer has returned
}

// Open opens the store at path, creating the file and its directories when
// missing, and brings the schema up to date.
func Open(path string) (*Store, error) {
	ctx := context.Background()
	s, err := open(ctx, path, migrations)
	if err != nil {
		return nil, err
	}
	if err := s.st.prepare(ctx, s.w, s.r); err != nil {
		s.Close()
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	return s, nil
}

// open opens the connections and migrates with steps; the statements are
// Open's business, since they need the whole schema.
func open(ctx context.Context, path string, steps []migration) (*Store, error) {
	if path == "" {
		return nil, errors.New("store: empty path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	w, err := sql.Open("sqlite", dsn(abs, roleWriter))
	if err != nil {
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	if err := migrate(ctx, w, steps); err != nil {
		w.Close()
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	r, err := sql.Open("sqlite", dsn(abs, roleReader))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	r.SetMaxOpenConns(readers)
	r.SetMaxIdleConns(readers)
	ck, err := sql.Open("sqlite", dsn(abs, roleCheckpoint))
	if err != nil {
		w.Close()
		r.Close()
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	ck.SetMaxOpenConns(1)
	ctx, stop := context.WithCancel(context.Background())
	s := &Store{path: abs, w: w, r: r, ck: ck, stop: stop, stopped: make(chan struct{})}
	go func() {
		defer close(s.stopped)
		pause.After(ctx, checkpointEvery, s.checkpoint)
	}()
	return s, nil
}

// checkpoint runs a PASSIVE checkpoint (it never blocks the writer or the
// readers) when something was written since the last one; the
// checkpointer runs it every checkpointEvery until Close.
func (s *Store) checkpoint(context.Context) {
	n := s.writes.Load()
	if n == s.checkpointed {
		return
	}
	var busy, logFrames, copied int
	// Not cancelled by Close: the checkpoint in progress ends first.
	err := s.ck.QueryRow("PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &logFrames, &copied)
	if err != nil {
		return // the next run tries again; the writer's own checkpoint is the backstop
	}
	s.checkpointed = n
	if copied > 0 {
		s.checkpoints.Add(1)
	}
}

// The connections a Store opens, each with its own settings.
type role int

const (
	roleWriter role = iota
	roleReader
	roleReadOnly // a reader that must not create the file
	roleCheckpoint
)

// dsn builds a file: URI so that a path holding '?' or '#' stays a path.
// Connection settings are per connection, hence in the DSN: the pool may
// open a fresh connection at any time.
func dsn(abs string, r role) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeoutMS))
	switch r {
	case roleWriter:
		q.Add("_pragma", "synchronous(NORMAL)")
		q.Add("_pragma", fmt.Sprintf("wal_autocheckpoint(%d)", writerCheckpointPages))
		q.Add("_pragma", fmt.Sprintf("cache_size(%d)", -writerCacheKiB))
		// BEGIN IMMEDIATE takes the write lock up front, so a transaction
		// never has to upgrade a read lock, the case where SQLite returns
		// SQLITE_BUSY at once instead of waiting out the busy timeout.
		q.Add("_txlock", "immediate")
	case roleReader, roleReadOnly:
		q.Add("_pragma", "query_only(1)")
		q.Add("_pragma", fmt.Sprintf("cache_size(%d)", -readerCacheKiB))
	case roleCheckpoint:
		q.Add("_pragma", "synchronous(NORMAL)")
	}
	if r == roleReadOnly {
		q.Add("_pragma", fmt.Sprintf("mmap_size(%d)", readOnlyMmapBytes))
		// SQLite's own URI parameter: read-write without create.
		q.Add("mode", "rw")
	}
	return u.String() + "?" + q.Encode()
}

// OpenReadOnly opens an existing store for reading only, for commands that
// read beside a running daemon (`vesper matches`, `vesper export`): it
// never creates or migrates the file, and every write returns ErrReadOnly.
// The file must be at this build's schema version.
func OpenReadOnly(path string) (*Store, error) {
	ctx := context.Background()
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	r, err := sql.Open("sqlite", dsn(abs, roleReadOnly))
	if err != nil {
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	r.SetMaxOpenConns(readers)
	r.SetMaxIdleConns(readers)
	s := &Store{path: abs, r: r}
	if err := s.checkReadable(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	if err := s.st.prepare(ctx, nil, r); err != nil {
		s.Close()
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	return s, nil
}

func (s *Store) checkReadable(ctx context.Context) error {
	var app, version int
	if err := s.r.QueryRowContext(ctx, "PRAGMA application_id").Scan(&app); err != nil {
		return fmt.Errorf("not a SQLite database: %w", err)
	}
	if app != applicationID {
		return fmt.Errorf("not a vesper store (application_id %#x)", app)
	}
	if err := s.r.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return err
	}
	switch {
	case version < SchemaVersion:
		return fmt.Errorf("schema version %d is older than this vesper's (%d): open it read-write once to migrate", version, SchemaVersion)
	case version > SchemaVersion:
		return fmt.Errorf("schema version %d is newer than this vesper (%d): upgrade vesper", version, SchemaVersion)
	}
	return nil
}

// Path returns the absolute path of the store file.
func (s *Store) Path() string { return s.path }

// Close closes the store. The writer closes last so that, when no other
// process has the file open, SQLite checkpoints the WAL into the file.
func (s *Store) Close() error {
	if s.stop != nil {
		s.stop()
		<-s.stopped
		s.ck.Close()
	}
	s.st.close()
	errR := s.r.Close()
	var errW error
	if s.w != nil {
		errW = s.w.Close()
	}
	if errW != nil {
		return fmt.Errorf("store: close: %w", errW)
	}
	if errR != nil {
		return fmt.Errorf("store: close: %w", errR)
	}
	return nil
}

// Version returns the schema version of the open file.
func (s *Store) Version(ctx context.Context) (int, error) {
	var v int
	if err := s.r.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("store: version: %w", err)
	}
	return v, nil
}

// Stats counts the stored events and the stored challenges (matches).
func (s *Store) Stats(ctx context.Context) (events, matches int, err error) {
	err = s.r.QueryRowContext(ctx,
		`SELECT (SELECT count(*) FROM events),
		        (SELECT count(*) FROM events WHERE kind = ?)`,
		nostr.KindChallenge).Scan(&events, &matches)
	if err != nil {
		return 0, 0, fmt.Errorf("store: stats: %w", err)
	}
	return events, matches, nil
}

// write runs fn in one write transaction, committed only if fn returns nil.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if s.w == nil {
		return ErrReadOnly
	}
	return s.commit(ctx, s.w, fn)
}

// commit runs fn in a transaction begun on db (the writer pool or one of
// its connections), committed only if fn returns nil.
func (s *Store) commit(ctx context.Context, db interface {
	BeginTx(context.Context, *sql.TxOptions) (*sql.Tx, error)
}, fn func(tx *sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	s.writes.Add(1)
	return nil
}

// writeSynced is write for a commit that must survive a power loss before
// the caller acts on it outside the machine: an outbox event is recorded
// before it is published, and a restart must find it rather than sign
// another. The commit runs with synchronous=FULL, so the WAL is fsynced,
// and with it every commit before this one.
func (s *Store) writeSynced(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if s.w == nil {
		return ErrReadOnly
	}
	conn, err := s.w.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA synchronous = FULL"); err != nil {
		return err
	}
	// Back to the writer's default even when ctx is done: the connection
	// outlives this call.
	defer func() { _, _ = conn.ExecContext(context.Background(), "PRAGMA synchronous = NORMAL") }()
	if err := s.commit(ctx, conn, fn); err != nil {
		return err
	}
	s.synced.Add(1)
	return nil
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vesper/nostr"
)

func TestSchemaVersionIsLastMigration(t *testing.T) {
	if got := migrations[len(migrations)-1].version; got != SchemaVersion {
		t.Errorf("last migration is %d, SchemaVersion %d", got, SchemaVersion)
	}
}

func TestOpenTwiceKeepsDataAndVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "deep", "er", "vesper.db")
	ctx := t.Context()
	ev := signed(t, nostr.GenerateKey(), nostr.NewChallenge(nostr.GameChess, "", 7))
	for round := range 3 {
		s, err := Open(path)
		if err != nil {
			t.Fatalf("open %d: %v", round, err)
		}
		v, err := s.Version(ctx)
		if err != nil || v != SchemaVersion {
			t.Errorf("open %d: version %d, %v; want %d", round, v, err, SchemaVersion)
		}
		isNew, err := s.PutEvent(ctx, ev, nil, "wss://r", 7)
		if err != nil || isNew != (round == 0) {
			t.Errorf("open %d: put = %v, %v", round, isNew, err)
		}
		var mode string
		if err := s.r.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
			t.Errorf("journal_mode = %q, %v", mode, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// rawDB opens path with the plain driver, to prepare files Open must judge.
func rawDB(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func TestOpenRefusesForeignOrNewerFiles(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, path string)
		want  string
		// foreign files must be left as they were: still a rollback journal
		foreign bool
	}{
		{"newer vesper", func(t *testing.T, path string) {
			s, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			rawDB(t, path, "PRAGMA user_version = 99")
		}, "schema version 99 is newer", false},
		{"other application", func(t *testing.T, path string) {
			rawDB(t, path, "PRAGMA application_id = 42", "CREATE TABLE t (x)")
		}, "not a vesper store", true},
		{"unversioned tables", func(t *testing.T, path string) {
			rawDB(t, path, "CREATE TABLE events (x)")
		}, "not a vesper store", true},
		{"versioned by someone else", func(t *testing.T, path string) {
			rawDB(t, path, "PRAGMA user_version = 1")
		}, "not a vesper store", true},
		{"not SQLite", func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte(strings.Repeat("not a database ", 300)), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "store:", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.db")
			tt.setup(t, path)
			s, err := Open(path)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one containing %q", err, tt.want)
			}
			if tt.foreign {
				db, err := sql.Open("sqlite", path)
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				var mode string
				if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "delete" {
					t.Errorf("foreign file's journal_mode = %q, %v; want it left at delete", mode, err)
				}
			}
		})
	}
}

// Steps run in order, once each, and a later build applies only the steps
// the file lacks.
func TestMigrationsApplyMissingStepsInOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	ctx := context.Background()
	steps := []migration{
		{version: 1, stmts: []string{`CREATE TABLE log (step INTEGER)`, `INSERT INTO log VALUES (1)`}},
		{version: 2, stmts: []string{`INSERT INTO log VALUES (2)`}},
		{version: 3, stmts: []string{`ALTER TABLE log ADD COLUMN note TEXT`, `INSERT INTO log VALUES (3, 'x')`}},
	}
	readLog := func(s *Store) []int {
		t.Helper()
		rows, err := s.r.QueryContext(ctx, `SELECT step FROM log ORDER BY rowid`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []int
		for rows.Next() {
			var n int
			if err := rows.Scan(&n); err != nil {
				t.Fatal(err)
			}
			out = append(out, n)
		}
		return out
	}
	for _, tt := range []struct {
		upto int
		want []int
	}{
		{2, []int{1, 2}},
		{2, []int{1, 2}},
		{3, []int{1, 2, 3}},
		{3, []int{1, 2, 3}},
	} {
		s, err := open(ctx, path, steps[:tt.upto])
		if err != nil {
			t.Fatal(err)
		}
		if got := readLog(s); !equalInts(got, tt.want) {
			t.Errorf("with %d steps: log %v, want %v", tt.upto, got, tt.want)
		}
		if v, _ := s.Version(ctx); v != tt.upto {
			t.Errorf("with %d steps: version %d", tt.upto, v)
		}
		s.Close()
	}
	// An older build does not open what a newer one migrated.
	if s, err := open(ctx, path, steps[:1]); err == nil {
		s.Close()
		t.Error("a build with one step opened a version 3 file")
	}

	// A failing step leaves the file at the previous version, not half done.
	broken := append(steps[:3:3], migration{version: 4, stmts: []string{
		`INSERT INTO log VALUES (4, 'y')`, `THIS IS NOT SQL`}})
	if s, err := open(ctx, path, broken); err == nil {
		s.Close()
		t.Fatal("a broken step succeeded")
	}
	s, err := open(ctx, path, steps)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := readLog(s); !equalInts(got, []int{1, 2, 3}) {
		t.Errorf("after a failed step: log %v", got)
	}
	if _, err := open(ctx, filepath.Join(t.TempDir(), "n.db"), []migration{{version: 2}}); err == nil {
		t.Error("steps out of sequence accepted")
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A path is a path, whatever URI syntax it holds.
func TestOpenOddPaths(t *testing.T) {
	for _, name := range []string{"with space.db", "q?mark.db", "hash#.db", "pct%20.db"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, name)
			s, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			if _, err := os.Stat(path); err != nil {
				t.Errorf("file not at %q: %v", path, err)
			}
		})
	}
	if _, err := Open(""); err == nil {
		t.Error("Open of an empty path succeeded")
	}
}

func TestOpenReadOnly(t *testing.T) {
	dir := t.TempDir()
	ctx := t.Context()
	missing := filepath.Join(dir, "missing.db")
	if s, err := OpenReadOnly(missing); err == nil {
		s.Close()
		t.Error("OpenReadOnly opened a missing file")
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("OpenReadOnly created %s", missing)
	}

	path := filepath.Join(dir, "vesper.db")
	w, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	k := nostr.GenerateKey()
	ch := signed(t, k, nostr.NewChallenge(nostr.GameChess, "", 50))
	if _, err := w.PutEvent(ctx, ch, nil, "wss://r", 50); err != nil {
		t.Fatal(err)
	}
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	// Written after the reader opened: it still sees it.
	mv := signed(t, k, nostr.NewMove(ch.ID, 1, "e2e4", 51))
	if _, err := w.PutEvent(ctx, mv, nil, "wss://r", 51); err != nil {
		t.Fatal(err)
	}
	evs, err := ro.MatchEvents(ctx, ch.ID)
	if err != nil || len(evs) != 2 {
		t.Errorf("read-only MatchEvents: %d events, %v; want 2", len(evs), err)
	}

	writes := map[string]func() error{
		"PutEvent":  func() error { _, err := ro.PutEvent(ctx, mv, nil, "wss://x", 1); return err },
		"AddRelay":  func() error { _, err := ro.AddRelay(ctx, mv.ID, "wss://x"); return err },
		"SetCursor": func() error { return ro.SetCursor(ctx, "wss://x", 1) },
		"PutSummary": func() error {
			return ro.PutSummary(ctx, Summary{Match: ch.ID, JSON: []byte(`{}`)})
		},
		"OutboxAdd":     func() error { _, _, err := ro.OutboxAdd(ctx, "d", mv); return err },
		"OutboxAttempt": func() error { return ro.OutboxAttempt(ctx, "d", "e") },
	}
	for name, write := range writes {
		if err := write(); !errors.Is(err, ErrReadOnly) {
			t.Errorf("%s on a read-only store: %v, want ErrReadOnly", name, err)
		}
	}

	for _, tt := range []struct {
		version int
		want    string
	}{
		{0, "older"},
		{SchemaVersion + 1, "newer"},
	} {
		p := filepath.Join(t.TempDir(), "v.db")
		s, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		rawDB(t, p, fmt.Sprintf("PRAGMA user_version = %d", tt.version))
		if s, err := OpenReadOnly(p); err == nil || !strings.Contains(err.Error(), tt.want) {
			if err == nil {
				s.Close()
			}
			t.Errorf("version %d: %v, want an error saying %q", tt.version, err, tt.want)
		}
	}
}

package benchfx

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vesper/store"
)

// TestIngestFile passes every line of a file over several batches to the
// store, checked or not, and reports a line that does not parse: a lost
// or doubled batch, or a bad line passed over in silence, would fail it.
func TestIngestFile(t *testing.T) {
	dir := t.TempDir()
	season := filepath.Join(dir, "season.jsonl")
	if _, err := WriteSeason(season, Meta{Version: Version, Matches: 4, Agents: 50, Seed: Seed, End: End}); err != nil {
		t.Fatal(err)
	}
	one, err := os.ReadFile(season)
	if err != nil {
		t.Fatal(err)
	}
	// The same events over and over: the store keeps one of each, but
	// every line is parsed, checked and handed on, in batches of 1,000.
	raw := bytes.Repeat(one, 2500/bytes.Count(one, []byte("\n"))+1)
	lines := bytes.Count(raw, []byte("\n"))
	path := filepath.Join(dir, "events.jsonl")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	// Signatures are checked on the one season (checking is slow under
	// -race), the batching on the whole file.
	for i, c := range []struct {
		path   string
		lines  int
		verify bool
	}{{season, bytes.Count(one, []byte("\n")), true}, {path, lines, false}} {
		st, err := store.Open(filepath.Join(dir, []string{"a.db", "b.db"}[i]))
		if err != nil {
			t.Fatal(err)
		}
		n, err := IngestFile(context.Background(), c.path, st, c.verify)
		st.Close()
		if err != nil || n != c.lines {
			t.Fatalf("verify %v: handed on %d of %d events, err %v", c.verify, n, c.lines, err)
		}
	}
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, append(raw, []byte("{\"not\": \"an event\"}\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(dir, "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	n, err := IngestFile(context.Background(), bad, st, false)
	if err == nil || !strings.Contains(err.Error(), "not") || n != lines {
		t.Fatalf("bad line: handed on %d of %d, err %v; want every good event and the bad line's error", n, lines, err)
	}
}

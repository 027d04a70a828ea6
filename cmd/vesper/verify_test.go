package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func goldenFiles(t *testing.T) []string {
	files, err := filepath.Glob("../../match/testdata/conformance/m-*.json")
	if err != nil || len(files) < 80 {
		t.Fatalf("golden files: %d, %v", len(files), err)
	}
	return files
}

// stripReasons keeps ignored ids in order: reasons are free text.
func stripReasons(m map[string]any) map[string]any {
	if ign, ok := m["ignored"].([]any); ok {
		var ids []any
		for _, e := range ign {
			ids = append(ids, e.(map[string]any)["id"])
		}
		m["ignored"] = ids
	}
	return m
}

// TestVerifyGoldenCLI: `vesper verify --json` over all 80 golden files
// prints each file's summary, one line per file in argument order.
func TestVerifyGoldenCLI(t *testing.T) {
	verifyGolden(t, goldenFiles(t))
}

// TestVerifyConnect4CLI: the same over the Connect Four conformance set
// of PROTOCOL.md revision 4 (match/testdata/connect4, issue 40).
func TestVerifyConnect4CLI(t *testing.T) {
	files, err := filepath.Glob("../../match/testdata/connect4/c4-*.json")
	if err != nil || len(files) < 13 {
		t.Fatalf("connect4 files: %d, %v", len(files), err)
	}
	verifyGolden(t, files)
}

// verifyGolden runs `vesper verify --json` over files, which hold at least
// one that is no match, and compares each line with the file's summary.
func verifyGolden(t *testing.T, files []string) {
	t.Helper()
	r := vesper(t, nil, nil, append([]string{"verify", "--json"}, files...)...)
	if r.code != 3 { // m-0002 and c4-0011 hold no valid match
		t.Fatalf("exit %d, want 3; stderr %s", r.code, r.stderr)
	}
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	sc.Buffer(nil, 1<<24)
	i := 0
	for ; sc.Scan(); i++ {
		var got map[string]any
		if err := json.Unmarshal(sc.Bytes(), &got); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		data, _ := os.ReadFile(files[i])
		var doc struct{ Summary map[string]any }
		_ = json.Unmarshal(data, &doc)
		if _, isErr := doc.Summary["error"]; isErr {
			if got["match"] != doc.Summary["match"] || !strings.HasPrefix(got["error"].(string), "no match: ") {
				t.Errorf("%s: got %v, want %v", files[i], got, doc.Summary)
			}
			continue
		}
		if !reflect.DeepEqual(stripReasons(got), stripReasons(doc.Summary)) {
			t.Errorf("%s:\ngot  %v\nwant %v", files[i], got, doc.Summary)
		}
	}
	if i != len(files) {
		t.Fatalf("%d lines for %d files", i, len(files))
	}
}

func TestVerifyExitStatuses(t *testing.T) {
	dir := t.TempDir()
	good := goldenFiles(t)[0]
	notJSON := filepath.Join(dir, "broken.json")
	os.WriteFile(notJSON, []byte("{not json"), 0o644)
	noMatch := filepath.Join(dir, "empty.json")
	os.WriteFile(noMatch, []byte(`{"events":[]}`), 0o644)
	missing := filepath.Join(dir, "missing.json")

	cases := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"all good", []string{good}, 0, ""},
		{"no match", []string{good, noMatch}, 3, ""},
		{"not JSON beats no match", []string{noMatch, notJSON}, 1, "broken.json: not a match.json"},
		{"missing file", []string{missing}, 1, "missing.json: cannot read"},
		{"no arguments", nil, 2, "no FILE"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := vesper(t, nil, nil, append([]string{"verify", "--json"}, c.args...)...)
			if r.code != c.code || !strings.Contains(r.stderr, c.stderr) {
				t.Fatalf("exit %d stderr %q; want %d containing %q", r.code, r.stderr, c.code, c.stderr)
			}
			if strings.Contains(r.stderr, "goroutine") || strings.Contains(r.stderr, "panic") {
				t.Fatalf("stack trace: %s", r.stderr)
			}
			if c.code != 2 && strings.Count(r.stdout, "\n") != len(c.args) {
				t.Fatalf("want one line per file, got %q", r.stdout)
			}
		})
	}
}

func TestVerifyStdinAndTable(t *testing.T) {
	data, _ := os.ReadFile(goldenFiles(t)[0])
	r := vesper(t, data, nil, "verify", "-")
	if r.code != 0 || !strings.Contains(r.stdout, "STATUS") || !strings.Contains(r.stdout, "ace8f21e5905") {
		t.Fatalf("exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	// Options after the file are accepted too.
	r = vesper(t, data, nil, "verify", "-", "--json")
	if r.code != 0 || !strings.HasPrefix(r.stdout, `{"match":"ace8f21e`) {
		t.Fatalf("exit %d: %s", r.code, r.stdout)
	}
}

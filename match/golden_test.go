package match

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestGoldenConformance checks the 80 matches of the shared conformance
// sample, computed by an independent implementation of PROTOCOL.md rev 2:
// every summary field must match; ignored reasons are free text, so only
// their ids and order are compared (section 6, conformance README).
func TestGoldenConformance(t *testing.T) {
	checkGolden(t, "testdata/conformance/m-*.json")
}

// TestConnect4Conformance checks the Connect Four set of PROTOCOL.md
// revision 4 section 5.1 (testdata/connect4, MANIFEST.tsv says what each
// file exercises): signed events, and summaries written down by hand
// from the protocol's text by its generator (gen.go), not by the fold.
func TestConnect4Conformance(t *testing.T) {
	checkGolden(t, "testdata/connect4/c4-*.json")
}

func checkGolden(t *testing.T, pattern string) {
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Summary map[string]any `json:"summary"`
			}
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			got := summarize(t, data)
			want := normalizeIgnored(doc.Summary)
			got = normalizeIgnored(got)
			if !reflect.DeepEqual(got, want) {
				for k := range want {
					if !reflect.DeepEqual(got[k], want[k]) {
						t.Errorf("%s: got %v\nwant %v", k, got[k], want[k])
					}
				}
				for k := range got {
					if _, ok := want[k]; !ok {
						t.Errorf("extra key %s: %v", k, got[k])
					}
				}
			}
		})
	}
}

// summarize runs what `vesper verify --json` runs and decodes its line.
func summarize(t *testing.T, data []byte) map[string]any {
	t.Helper()
	f, err := ParseFile(data)
	if err != nil {
		t.Fatal(err)
	}
	id := f.Match
	if id == "" {
		if id, err = FindChallenge(f.Events); err != nil {
			return map[string]any{"match": nil, "error": err.Error()}
		}
	}
	var line []byte
	st, err := Fold(id, f.Events, f.SeenAt)
	if err != nil {
		line = MarshalLine(ErrorSummary{Match: &id, Error: err.Error()})
	} else {
		line = MarshalLine(st.Summary(f.Now(st)))
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// normalizeIgnored keeps only each ignored entry's id, in order (reasons are
// free text between implementations), and reduces a no-match error to its
// "no match: " prefix.
func normalizeIgnored(m map[string]any) map[string]any {
	if e, ok := m["error"].(string); ok {
		m["error"] = strings.HasPrefix(e, "no match: ")
	}
	ign, ok := m["ignored"].([]any)
	if !ok {
		return m
	}
	ids := make([]any, 0, len(ign))
	for _, e := range ign {
		if em, ok := e.(map[string]any); ok {
			ids = append(ids, em["id"])
		}
	}
	m["ignored"] = ids
	return m
}

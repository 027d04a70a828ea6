package site

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"vesper/conformance/interop"
)

// htmlValidate returns node and html-validate's command line, installed
// with the interop clients (`npm ci --prefix conformance/interop`, pinned
// by its package-lock.json). The test skips without them unless
// VESPER_REQUIRE_INTEROP is set (.ci/run sets it), as the axe test does.
func htmlValidate(t *testing.T) (node, cli string) {
	t.Helper()
	cli = filepath.Join(interop.Dir(), "node_modules", "html-validate", "bin", "html-validate.mjs")
	_, err := os.Stat(cli)
	if err == nil {
		node, err = exec.LookPath("node")
	}
	if err == nil {
		return node, cli
	}
	msg := fmt.Sprintf("html-validate not installed (%v): run `npm ci --prefix conformance/interop`", err)
	if (errors.Is(err, os.ErrNotExist) || errors.Is(err, exec.ErrNotFound)) && os.Getenv("VESPER_REQUIRE_INTEROP") == "" {
		t.Skip(msg)
	}
	t.Fatal(msg)
	return "", ""
}

// htmlValidateResult is what the test reads of html-validate's JSON
// report: one entry per file with problems.
type htmlValidateResult struct {
	FilePath string `json:"filePath"`
	Messages []struct {
		RuleID   string `json:"ruleId"`
		Severity int    `json:"severity"`
		Message  string `json:"message"`
		Line     int    `json:"line"`
		Column   int    `json:"column"`
		Selector string `json:"selector"`
	} `json:"messages"`
}

// TestHTMLValidate runs html-validate, with the recommended preset and
// the rules .htmlvalidate.json turns off (each with its reason), over
// every HTML file of a site that has every kind of page the build writes
// (everyKindSite): no error (issue 37). With -short, one page of each
// kind.
func TestHTMLValidate(t *testing.T) {
	node, cli := htmlValidate(t)
	out, kinds := everyKindSite(t)
	files := htmlFiles(t, out)
	if testing.Short() { // one page of each kind
		files = files[:0]
		for _, k := range kinds {
			files = append(files, k.rel)
		}
	}
	root, err := filepath.EvalSymlinks(out)
	if err != nil {
		t.Fatal(err)
	}
	config, err := filepath.Abs(".htmlvalidate.json")
	if err != nil {
		t.Fatal(err)
	}
	// The report goes to a file: written to a pipe, a large one is cut
	// short when node exits.
	report := filepath.Join(t.TempDir(), "report.json")
	args := []string{cli, "--config", config, "--formatter", "json=" + report}
	for _, rel := range files {
		args = append(args, filepath.Join(root, filepath.FromSlash(rel)))
	}
	cmd := exec.Command(node, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var results []htmlValidateResult
	data, err := os.ReadFile(report)
	if err == nil {
		err = json.Unmarshal(data, &results)
	}
	if err != nil {
		t.Fatalf("html-validate: %v (%v); output: %s %s", err, runErr, stdout.Bytes(), stderr.Bytes())
	}
	errs := 0
	for _, r := range results {
		rel, _ := filepath.Rel(root, r.FilePath)
		for _, m := range r.Messages {
			if m.Severity >= 2 {
				errs++
				t.Errorf("%s:%d:%d: %s [%s] at %s", filepath.ToSlash(rel), m.Line, m.Column, m.Message, m.RuleID, m.Selector)
			}
		}
	}
	if errs == 0 && runErr != nil {
		t.Fatalf("html-validate failed without reporting an error: %v; stderr: %s", runErr, stderr.Bytes())
	}
	t.Logf("%d files, %d errors", len(files), errs)
}

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"vesper/match"
)

// binPath is the vesper binary built once for the tests that run it as a
// user would (exit statuses, stdout/stderr, kill -9).
var binPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "vesper-bin-")
	if err != nil {
		panic(err)
	}
	binPath = filepath.Join(dir, "vesper")
	out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
	if err != nil {
		os.Stderr.Write(out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	code           int
}

// vesper runs the binary with args and optional stdin.
func vesper(t *testing.T, stdin []byte, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Env = append(os.Environ(), env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{out.String(), errb.String(), code}
}

// TestExitStatuses is bugs 5, 6 and 8 of issue 14: usage mistakes, unknown
// commands and missing matches have their own statuses, and under --json
// stdout holds exactly one JSON object whatever goes wrong.
func TestExitStatuses(t *testing.T) {
	e := newAgentEnv(t)
	missing := strings.Repeat("ab", 32)
	cases := []struct {
		name string
		args []string
		code int
		json bool
	}{
		{"bad flag under --json", []string{"status", "--json", "--bogus", "x", missing}, exitUsage, true},
		{"missing argument", []string{"move", "--json", "--key", e.aKey, missing}, exitUsage, true},
		{"unknown command", []string{"nope"}, exitUsage, false},
		{"help", []string{"help"}, exitOK, false},
		{"help of a command", []string{"help", "move"}, exitOK, false},
		{"match not on the relays", []string{"status", "--json", "--relays", e.relay.URL(), missing}, exitNotFound, true},
		{"keygen --json without --out", []string{"keygen", "--json"}, exitUsage, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := vesper(t, nil, nil, c.args...)
			if r.code != c.code {
				t.Fatalf("exit %d, want %d (stderr %s)", r.code, c.code, r.stderr)
			}
			if !c.json {
				return
			}
			dec := json.NewDecoder(strings.NewReader(r.stdout))
			var obj map[string]any
			if err := dec.Decode(&obj); err != nil || dec.More() {
				t.Fatalf("stdout is not exactly one JSON object: %q", r.stdout)
			}
			if int(obj["code"].(float64)) != c.code || obj["error"] == "" {
				t.Fatalf("error object %v", obj)
			}
		})
	}
	r := vesper(t, nil, nil, "whoami", "--key", e.aKey)
	if r.code != 0 || strings.Contains(r.stdout, "written") {
		t.Fatalf("whoami: %q", r.stdout)
	}
	r = vesper(t, nil, nil, "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "vesper wait MATCH") || !strings.Contains(r.stdout, "Each move has "+match.Span(match.MoveClock)) {
		t.Fatalf("root help does not explain the flow: %s", r.stdout)
	}
}

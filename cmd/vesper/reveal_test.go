package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/testkit"
	"vesper/internal/testkit/playtest"
	"vesper/nostr"
	"vesper/nostr/relay"
	"vesper/reveal"
	"vesper/seat"
)

// TestRevealSurvivesKill9 (PROTOCOL.md section 8.2, issue 27): both players
// commit reasoning with their moves through the CLI. The mating move's
// process is killed with SIGKILL right after publishing it, and so is the
// process whose signature makes the result final, before it can reveal. A
// new process finds the journal beside the key and reveals; reveal.Check
// verifies every entry.
func TestRevealSurvivesKill9(t *testing.T) {
	testkit.QuickLoopSkips(t)
	t.Parallel()
	e := newAgentEnv(t)
	id := e.ok(t, "challenge", "--key", e.aKey, "--game", "chess")["match"].(string)
	e.ok(t, "accept", "--key", e.bKey, id)
	reasonFile := filepath.Join(t.TempDir(), "plan.txt")
	if err := os.WriteFile(reasonFile, []byte("from a file:\nmate on h4"), 0o600); err != nil {
		t.Fatal(err)
	}
	for i, mv := range []string{"f3", "e5", "g4", "Qh4#"} {
		k := e.aKey
		if i%2 == 1 {
			k = e.bKey
		}
		args := []string{"move", "--key", k, id, mv, "--comment", "gl", "--attempts", "1", "--usage", `{"output_tokens":12}`}
		if mv == "Qh4#" {
			// The mate's process is killed right after it published the
			// move: the journal, written before, holds the reasoning.
			killAfterPublish(t, append(args, "--reasoning-file", reasonFile, "--relays", e.relay.URL())...)
			continue
		}
		args = append(args, "--reasoning", "plan "+mv)
		if out := e.ok(t, args...); !nostr.IsLowerHex(out["reasoning"].(string), 64) {
			t.Fatalf("move output %v", out)
		}
		if i == 1 {
			// While the game is live, a reveal is refused.
			e.refused(t, 3, seat.RuleRevealLive, "reveal", "--key", e.bKey, id)
		}
	}
	// The journal is beside the key, 0600, and holds the text.
	jf := filepath.Join(e.bKey+".reasoning", id+".jsonl")
	fi, err := os.Stat(jf)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("journal %s: %v %v", jf, fi, err)
	}
	e.ok(t, "result", "--key", e.aKey, id) // not final yet: reveals nothing

	// b's signature makes the result final; the process stops right after
	// publishing it and is killed there, before it could reveal.
	killAfterPublish(t, "result", "--json", "--relays", e.relay.URL(), "--key", e.bKey, id)

	rep := checkReveals(t, e.relay.URL(), id)
	if len(rep.Entries) != 4 {
		t.Fatalf("%d committed entries", len(rep.Entries))
	}
	for _, en := range rep.Entries {
		if en.Status != reveal.Unrevealed {
			t.Fatalf("after the kill: %+v", en)
		}
	}
	if st := e.status(t, id); st["final"] != true {
		t.Fatalf("the killed process's result is not on the relay: %v", st)
	}

	// A new process of b finds the journal and reveals; a's wait wakes
	// final and reveals a's.
	out := e.ok(t, "reveal", "--key", e.bKey, id)
	if evs := out["events"].([]any); len(evs) != 1 || out["early"] == true || len(out["revealed"].([]any)) != 2 {
		t.Fatalf("reveal output %v", out)
	}
	if woke := e.ok(t, "wait", "--key", e.aKey, "--timeout", "0", id); woke["reason"] != "final" || len(woke["revealed"].([]any)) != 1 {
		t.Fatalf("a's wait %v", woke)
	}
	rep = checkReveals(t, e.relay.URL(), id)
	for _, en := range rep.Entries {
		if en.Status != reveal.Verified {
			t.Fatalf("entry %+v", en)
		}
	}
	if en := rep.Entries[3]; en.Text != "from a file:\nmate on h4" {
		t.Fatalf("the mate's reasoning reads %q", en.Text)
	}
	// Nothing left: a second reveal publishes nothing.
	if out := e.ok(t, "reveal", "--key", e.bKey, id); len(out["events"].([]any)) != 0 {
		t.Fatalf("second reveal %v", out)
	}
}

// killAfterPublish runs vesper with args, stopped by the test hook right
// after it published its event, and kills it there with SIGKILL.
func killAfterPublish(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Env = append(os.Environ(), "VESPER_TEST_HOLD_AFTER_PUBLISH=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stderr).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "published ") {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("vesper %v said %q, %v", args, line, err)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
}

// checkReveals reads the match and its reveals from the relay as an
// independent verifier would, and checks them.
func checkReveals(t *testing.T, url, id string) reveal.Report {
	t.Helper()
	_, rep := playtest.Reveals(t, url, id)
	return rep
}

// TestProfileAgent (section 8.4): vesper profile publishes the agent
// identity beside "bot": true; a too-long model is refused before signing.
func TestProfileAgent(t *testing.T) {
	t.Parallel()
	e := newAgentEnv(t)
	out := e.ok(t, "profile", "--key", e.aKey, "--name", "A", "--model", "demo-model-a", "--provider", "acme", "--harness", "vesper play", "--version", "2")
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(30*time.Second))
	defer cancel()
	got, err := relay.Fetch(ctx, []string{e.relay.URL()}, []gn.Filter{{IDs: []string{out["event"].(string)}}}, testkit.Scale(30*time.Second))
	if err != nil || len(got) != 1 {
		t.Fatalf("fetch profile: %v %d", err, len(got))
	}
	a, present, ignored := nostr.ReadAgent(got[0].Event.Content)
	if !present || len(ignored) != 0 || a != (nostr.Agent{Model: "demo-model-a", Provider: "acme", Harness: "vesper play", Version: "2"}) ||
		!strings.Contains(got[0].Event.Content, `"bot":true`) {
		t.Fatalf("profile content %s", got[0].Event.Content)
	}
	if _, r := e.run(t, "profile", "--key", e.aKey, "--name", "A", "--model", strings.Repeat("m", 101)); r.code != exitUsage {
		t.Fatalf("a 101-character model: exit %d", r.code)
	}
}

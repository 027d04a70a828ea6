package interop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"testing"
	"time"

	"vesper/conformance/interop"
	"vesper/internal/testkit"
	"vesper/match"
	"vesper/relayd"
	"vesper/seat"
)

// hostConfig is the part of an MCP host's configuration that starts a server
// (Claude Desktop's claude_desktop_config.json, Cursor's mcp.json).
type hostConfig struct {
	MCPServers map[string]struct {
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env,omitempty"`
	} `json:"mcpServers"`
}

// readmeConfig is the MCP client configuration of docs/PLAYING.md (where
// the README sends agents), the one a user copies into a host.
func readmeConfig(t *testing.T) hostConfig {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(interop.Dir(), "..", "..", "docs", "PLAYING.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile("(?s)```json\n(.*?)```").FindAllSubmatch(b, -1) {
		if !bytes.Contains(m[1], []byte(`"mcpServers"`)) {
			continue
		}
		var c hostConfig
		if err := json.Unmarshal(m[1], &c); err != nil {
			t.Fatalf("the documented MCP configuration is not JSON: %v\n%s", err, m[1])
		}
		if _, ok := c.MCPServers["vesper"]; !ok {
			t.Fatalf("the documented MCP configuration has no server \"vesper\":\n%s", m[1])
		}
		return c
	}
	t.Fatal("docs/PLAYING.md has no MCP configuration (a json block with mcpServers)")
	return hostConfig{}
}

// forPlayer is the README's configuration with this machine's key file and
// relay in place of the README's examples; the rest is as a user copies it.
func forPlayer(t *testing.T, c hostConfig, keyFile, relayURL string) string {
	t.Helper()
	s := c.MCPServers["vesper"]
	s.Args = slices.Clone(s.Args)
	set := map[string]string{"--key": keyFile, "--relays": relayURL}
	for i := 0; i+1 < len(s.Args); i++ {
		if v, ok := set[s.Args[i]]; ok {
			s.Args[i+1] = v
			delete(set, s.Args[i])
		}
	}
	if len(set) != 0 {
		t.Fatalf("the documented MCP configuration lacks %v in its args %v", set, s.Args)
	}
	c.MCPServers = map[string]struct {
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env,omitempty"`
	}{"vesper": s}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "host.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// buildVesper builds the binary into a directory that goes first on the
// PATH, so that the README's "command": "vesper" finds it.
func buildVesper(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	name := "vesper"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if out, err := exec.Command("go", "build", "-o", filepath.Join(dir, name), "vesper/cmd/vesper").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return dir
}

// finalState is what mcp.mjs reports of a finished game, as game_state gave
// it to one player.
type finalState struct {
	match.Summary
	MyRole string `json:"my_role"`
}

// TestTypeScriptSDKHost is issue 24's "done when" for item 7: a host built
// on the official MCP TypeScript SDK (npm @modelcontextprotocol/sdk,
// pinned), with the README's MCP configuration, lists vesper's tools (the
// SDK rejected the whole list while output schemas were ["null", "object"])
// and plays two whole games, chess and gomoku, between two keys, with the
// SDK's default request options (a 60 s timeout; wait_turn without
// timeout_seconds must answer within it) and its validation of every
// structured content, refusals included. Both games must end final with the
// results the Go fold computes from the relay's events.
func TestTypeScriptSDKHost(t *testing.T) {
	testkit.QuickLoopSkips(t)
	node := interop.NodeOrSkip(t)
	cfg := readmeConfig(t)
	if cmd := cfg.MCPServers["vesper"].Command; cmd != "vesper" {
		t.Fatalf("the documented MCP configuration runs %q; this test puts the built vesper on the PATH", cmd)
	}
	bin := buildVesper(t)
	r, err := relayd.Start(context.Background(), relayd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })

	var configs []string
	for _, name := range []string{"ts-alice", "ts-bob"} {
		keyFile := filepath.Join(t.TempDir(), name+".key")
		if err := os.WriteFile(keyFile, []byte(testkit.Key(name).Nsec()+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		configs = append(configs, forPlayer(t, cfg, keyFile, r.URL()))
	}

	// A generous bound, only so that a hung server fails the test instead
	// of the whole run: the script itself plays in seconds.
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(5*time.Minute))
	defer cancel()
	cmd := exec.CommandContext(ctx, node, interop.Script("mcp.mjs"), configs[0], configs[1])
	cmd.Dir = interop.Dir()
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node mcp.mjs: %v\nstderr:\n%s", err, stderr.String())
	}
	var out struct {
		Games []struct {
			Match  string     `json:"match"`
			Game   string     `json:"game"`
			First  finalState `json:"first"`
			Second finalState `json:"second"`
		} `json:"games"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("mcp.mjs printed %q: %v\nstderr:\n%s", stdout.String(), err, stderr.String())
	}

	want := map[string]struct {
		result string
		reason match.Reason
		plies  int
	}{
		"chess":  {"second", match.ReasonCheckmate, 4},
		"gomoku": {"first", match.ReasonFiveInARow, 9},
	}
	if len(out.Games) != len(want) {
		t.Fatalf("mcp.mjs played %d games, want %d", len(out.Games), len(want))
	}
	reader := &seat.Seat{Relays: []string{r.URL()}, Timeout: testkit.Scale(30 * time.Second)}
	for _, g := range out.Games {
		w, ok := want[g.Game]
		if !ok {
			t.Errorf("mcp.mjs played %q", g.Game)
			continue
		}
		snap, err := reader.Read(context.Background(), g.Match)
		if err != nil {
			t.Fatalf("%s: reading %s back: %v", g.Game, g.Match, err)
		}
		fold := snap.State.Summary(snap.At)
		if !fold.Final || fold.Result == nil || *fold.Result != w.result || fold.Reason == nil || *fold.Reason != w.reason || fold.Plies != w.plies {
			t.Errorf("%s: the Go fold of the relay's events gives %+v, want final %s by %s at ply %d", g.Game, fold, w.result, w.reason, w.plies)
		}
		for _, seen := range []finalState{g.First, g.Second} {
			if !sameOutcome(seen.Summary, fold) {
				t.Errorf("%s: the %s player's client saw %+v, the Go fold %+v", g.Game, seen.MyRole, seen.Summary, fold)
			}
		}
	}
	// challenge, accept, 4 moves, 2 signatures; then 9 moves: the refused
	// move published nothing.
	if n := r.Count(); n != 8+13 {
		t.Errorf("relay holds %d events, want 21", n)
	}
}

// sameOutcome compares what decides a game's outcome, leaving out the
// fields that depend on when it was read.
func sameOutcome(a, b match.Summary) bool {
	eq := func(x, y *string) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return a.Match == b.Match && a.Game == b.Game && a.First == b.First && eq(a.Second, b.Second) &&
		a.Status == b.Status && eq(a.Result, b.Result) && (a.Reason == nil) == (b.Reason == nil) &&
		(a.Reason == nil || *a.Reason == *b.Reason) && a.Plies == b.Plies && a.Final == b.Final &&
		a.FinalHash == b.FinalHash && (a.FinalBy == nil) == (b.FinalBy == nil) && (a.FinalBy == nil || *a.FinalBy == *b.FinalBy) &&
		eq(a.FinalEvent, b.FinalEvent) && slices.Equal(a.Moves, b.Moves)
}

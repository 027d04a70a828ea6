package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	ws "github.com/coder/websocket"
	"github.com/urfave/cli/v2"

	"vesper/internal/testkit"
	"vesper/nostr"
	"vesper/relayd"
)

// TestRelayAuth (issue 24, item 4): `vesper relay --auth` sends a NIP-42
// challenge as soon as a client connects, and refuses a REQ with CLOSED
// "auth-required:" until the client authenticates.
func TestRelayAuth(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(time.Minute))
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, "relay", "--auth", "--listen", "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { // before cancel, which would kill it
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no line from vesper relay: %v", err)
	}
	url := regexp.MustCompile(`ws://127\.0\.0\.1:[0-9]+`).FindString(line)
	if url == "" {
		t.Fatalf("no address in %q", line)
	}
	c, _, err := ws.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	read := func() []json.RawMessage {
		t.Helper()
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var msg []json.RawMessage
		if err := json.Unmarshal(b, &msg); err != nil || len(msg) < 2 {
			t.Fatalf("bad message %s", b)
		}
		return msg
	}
	if msg := read(); string(msg[0]) != `"AUTH"` {
		t.Fatalf("first message %s, want the AUTH challenge", msg)
	}
	req, _ := json.Marshal([]any{"REQ", "q", map[string]any{"kinds": []int{nostr.KindMove}}})
	if err := c.Write(ctx, ws.MessageText, req); err != nil {
		t.Fatal(err)
	}
	for {
		msg := read()
		if string(msg[0]) == `"AUTH"` {
			continue
		}
		var reason string
		if len(msg) == 3 {
			json.Unmarshal(msg[2], &reason)
		}
		if string(msg[0]) != `"CLOSED"` || !strings.HasPrefix(reason, "auth-required:") {
			t.Fatalf("REQ before AUTH answered %s, want CLOSED auth-required:", msg)
		}
		break
	}
}

// TestUpperCaseNevent (issue 24, item 5): a match given as an all upper
// case NEVENT1... (as QR codes carry it) is read like its lower-case form;
// mixed case is still a usage error (exit 2).
func TestUpperCaseNevent(t *testing.T) {
	f := newPGNFixture(t)
	ne := nostr.Nevent(f.final.ID, f.final.A.PublicKey(), []string{"wss://relay.example"})
	want := vesper(t, nil, nil, "pgn", "--data", f.data, ne)
	if want.code != 0 {
		t.Fatalf("lower case: exit %d: %s", want.code, want.stderr)
	}
	if r := vesper(t, nil, nil, "pgn", "--data", f.data, strings.ToUpper(ne)); r.code != 0 || r.stdout != want.stdout {
		t.Errorf("upper case: exit %d, stderr %q, stdout differs: %v", r.code, r.stderr, r.stdout != want.stdout)
	}
	mixed := ne[:len(ne)/2] + strings.ToUpper(ne[len(ne)/2:])
	if r := vesper(t, nil, nil, "pgn", "--data", f.data, mixed); r.code != exitUsage {
		t.Errorf("mixed case: exit %d, want %d (usage)", r.code, exitUsage)
	}
}

// TestRelayLimitFlags (issue 30, item 9): `vesper relay --help` lists
// every limit, each defaults to relayd.PublicLimits, and each flag reaches
// the relay's Limits.
func TestRelayLimitFlags(t *testing.T) {
	r := vesper(t, nil, nil, "relay", "--help")
	for _, name := range []string{"max-connections-per-ip", "idle-timeout", "neg-sessions-per-connection", "neg-sessions", "neg-memory", "memory-store"} {
		if !strings.Contains(r.stdout+r.stderr, "--"+name) {
			t.Errorf("vesper relay --help does not list --%s", name)
		}
	}
	var got relayd.Limits
	cmd := relayCommand()
	cmd.Action = func(c *cli.Context) error { got = relayLimits(c); return nil }
	app := &cli.App{Commands: []*cli.Command{cmd}}
	if err := app.Run([]string{"vesper", "relay"}); err != nil {
		t.Fatal(err)
	}
	if want := relayd.PublicLimits(); got.MaxConnectionsPerIP != want.MaxConnectionsPerIP || got.IdleTimeout != want.IdleTimeout ||
		got.NegSessionsPerConnection != want.NegSessionsPerConnection || got.NegSessionsTotal != want.NegSessionsTotal ||
		got.NegMemoryBytes != want.NegMemoryBytes || got.MemoryStoreBytes != want.MemoryStoreBytes {
		t.Errorf("defaults %+v, want PublicLimits %+v", got, want)
	}
	args := []string{"vesper", "relay", "--max-connections-per-ip", "3", "--idle-timeout", "7s", "--neg-sessions-per-connection", "2",
		"--neg-sessions", "9", "--neg-memory", "1000", "--memory-store", "2000"}
	if err := app.Run(args); err != nil {
		t.Fatal(err)
	}
	if got.MaxConnectionsPerIP != 3 || got.IdleTimeout != 7*time.Second || got.NegSessionsPerConnection != 2 ||
		got.NegSessionsTotal != 9 || got.NegMemoryBytes != 1000 || got.MemoryStoreBytes != 2000 {
		t.Errorf("flags did not reach the limits: %+v", got)
	}
}

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

	"vesper/internal/testkit"
	"vesper/nostr"
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

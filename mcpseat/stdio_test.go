package mcpseat_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/nostr"
)

// rpcReply is what the tests read of one line of `vesper mcp`'s stdout.
type rpcReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// TestMalformedLinesKeepServing (issue 30, item 10): `vesper mcp` answers
// a line that is not a JSON-RPC message with a JSON-RPC error (-32700 for
// one that is not JSON, -32600 for JSON that is no message) and goes on
// serving. Before, the SDK's stdio transport ended the session, and the
// process exited, at the first such line.
func TestMalformedLinesKeepServing(t *testing.T) {
	r := startRelay(t)
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "agent.key")
	if err := os.WriteFile(keyFile, []byte(nostr.GenerateKey().Hex()), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(2*time.Minute))
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, "mcp", "--key", keyFile, "--relays", r.URL())
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+dir, "XDG_CONFIG_HOME="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 1<<22)
	next := func(sent string) rpcReply {
		t.Helper()
		if _, err := io.WriteString(stdin, sent+"\n"); err != nil {
			t.Fatalf("write %q: %v (did vesper mcp exit?)", sent, err)
		}
		if !lines.Scan() {
			t.Fatalf("no answer to %q: %v (did vesper mcp exit?)", sent, lines.Err())
		}
		var rep rpcReply
		if err := json.Unmarshal(lines.Bytes(), &rep); err != nil {
			t.Fatalf("answer to %q is not JSON: %s", sent, lines.Bytes())
		}
		return rep
	}
	wantError := func(sent string, code int, id string) {
		t.Helper()
		rep := next(sent)
		if rep.Error == nil || rep.Error.Code != code || string(rep.ID) != id {
			t.Fatalf("answer to %q: id %s error %+v, want id %s code %d", sent, rep.ID, rep.Error, id, code)
		}
	}
	wantError("this is not json", -32700, "null")
	wantError(`{"jsonrpc":"2.0","id":1,"method":"initialize"`, -32700, "null")
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	if rep := next(init); rep.Error != nil || !strings.Contains(string(rep.Result), `"serverInfo"`) {
		t.Fatalf("initialize after garbage: %s %+v", rep.Result, rep.Error)
	}
	if _, err := io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	wantError(`{"jsonrpc":"1.0","id":7,"method":"tools/list"}`, -32600, "7")
	wantError(`[]`, -32600, "null")
	wantError(`[{"jsonrpc":"2.0","id":8,"method":"tools/list"}]`, -32600, "null")
	wantError(`42`, -32600, "null")
	if rep := next(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); rep.Error != nil || !strings.Contains(string(rep.Result), `"play"`) {
		t.Fatalf("tools/list after malformed lines: %s %+v", rep.Result, rep.Error)
	}
}

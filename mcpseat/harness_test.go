package mcpseat_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"vesper/internal/testkit"
	"vesper/nostr"
	"vesper/relayd"
)

var update = flag.Bool("update", false, "rewrite testdata/tools.json from the server's tools/list")

// binPath is the vesper binary, built once per test run: the tests talk to
// real `vesper mcp` processes, as an MCP client would.
var binPath string

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "vesper-mcp-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "vesper")
	args := []string{"build", "-o", binPath}
	if raceBuild {
		args = append(args, "-race")
	}
	if out, err := exec.Command("go", append(args, "vesper/cmd/vesper")...).CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// startRelay runs an embedded relay on a loopback port for one test.
func startRelay(t *testing.T) *relayd.Relay {
	t.Helper()
	r, err := relayd.Start(context.Background(), relayd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// agent is one `vesper mcp` process and the SDK client session talking to it.
type agent struct {
	t        *testing.T
	name     string
	key      nostr.SecretKey
	pk       string
	cs       *mcp.ClientSession
	progress atomic.Int64 // progress notifications received
	mu       sync.Mutex
	messages []string // their messages
	hook     func(*mcp.ProgressNotificationParams)
	stderr   *testkit.Buffer
	outputs  map[string]*jsonschema.Resolved // output schemas by tool
}

// startAgent starts `vesper mcp --key FILE --relays URL` for a test key.
func startAgent(t *testing.T, relayURL, name string, extra ...string) *agent {
	t.Helper()
	a := &agent{t: t, name: name, key: testkit.Key(name), stderr: &testkit.Buffer{}}
	a.pk = a.key.PublicKey()
	keyFile := filepath.Join(t.TempDir(), name+".key")
	if err := os.WriteFile(keyFile, []byte(a.key.Nsec()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Each relay read ends on the relay's answer: a long timeout costs
	// nothing and holds on a busy machine (the default is 10 s).
	args := append([]string{"mcp", "--key", keyFile, "--relays", relayURL, "--timeout", testkit.ScaleFlag(30 * time.Second)}, extra...)
	cmd := exec.Command(binPath, args...)
	cmd.Stderr = a.stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "vesper-test-" + name, Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			a.progress.Add(1)
			a.mu.Lock()
			a.messages = append(a.messages, req.Params.Message)
			hook := a.hook
			a.mu.Unlock()
			if hook != nil {
				hook(req.Params)
			}
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(30*time.Second))
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: testkit.Scale(2 * time.Second)}, nil)
	if err != nil {
		t.Fatalf("%s: connect: %v (stderr: %s)", name, err, a.stderr.String())
	}
	a.cs = cs
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	a.outputs = map[string]*jsonschema.Resolved{}
	for _, tool := range tools.Tools {
		if tool.OutputSchema != nil {
			rs, err := resolve(t, tool.OutputSchema).Resolve(nil)
			if err != nil {
				t.Fatal(err)
			}
			a.outputs[tool.Name] = rs
		}
	}
	t.Cleanup(func() {
		// Closing stdin is how a stdio client ends the session: the server
		// must exit cleanly (status 0) on it.
		if err := cs.Close(); err != nil {
			t.Errorf("%s: the server did not exit cleanly: %v (stderr: %s)", name, err, a.stderr.String())
		}
		if strings.Contains(a.stderr.String(), "WARNING: DATA RACE") {
			t.Errorf("%s: the race detector fired in the server:\n%s", name, a.stderr.String())
		}
		// A secret key must never reach the process's output.
		if s := a.stderr.String(); strings.Contains(s, a.key.Nsec()) || strings.Contains(s, a.key.Hex()) {
			t.Errorf("%s: the secret key appeared on stderr", name)
		}
	})
	return a
}

// call calls a tool and fails the test on a protocol error (a refusal is
// not one: it is a result with isError).
func (a *agent) call(name string, args any, progressToken any) *mcp.CallToolResult {
	a.t.Helper()
	res, err := a.try(name, args, progressToken)
	if err != nil {
		a.t.Fatal(err)
	}
	return res
}

// try calls a tool; it is safe from any goroutine. A successful result's
// structured content must validate against the tool's output schema as
// tools/list gave it.
func (a *agent) try(name string, args any, progressToken any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(90*time.Second))
	defer cancel()
	p := &mcp.CallToolParams{Name: name, Arguments: args}
	if progressToken != nil {
		p.SetProgressToken(progressToken)
	}
	res, err := a.cs.CallTool(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("%s: %s(%v): %v (stderr: %s)", a.name, name, args, err, a.stderr.String())
	}
	if res.IsError {
		return res, nil
	}
	schema := a.outputs[name]
	if schema == nil {
		return nil, fmt.Errorf("%s: tool %s has no output schema", a.name, name)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("%s: %s: structured content: %v", a.name, name, err)
	}
	if err := schema.Validate(v); err != nil {
		return nil, fmt.Errorf("%s: %s: structured content does not match the output schema: %v\n%s", a.name, name, err, b)
	}
	return res, nil
}

// ok calls a tool that must succeed and decodes its structured content.
func ok[T any](a *agent, name string, args any) T {
	a.t.Helper()
	res := a.call(name, args, nil)
	if res.IsError {
		a.t.Fatalf("%s: %s(%v) refused: %s", a.name, name, args, text(res))
	}
	return decode[T](a.t, res)
}

func decode[T any](t *testing.T, res *mcp.CallToolResult) T {
	t.Helper()
	var out T
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
	return out
}

// text is the result's text content, joined.
func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// decodeAny is decode for goroutines: a content that does not decode gives
// the zero value, which the caller's checks then reject.
func decodeAny[T any](res *mcp.CallToolResult) T {
	var out T
	b, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(b, &out)
	return out
}

// onProgress sees every progress notification from now on.
func (a *agent) onProgress(f func(*mcp.ProgressNotificationParams)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.hook = f
}

// countMessages counts the progress messages received that contain sub.
func (a *agent) countMessages(sub string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, m := range a.messages {
		if strings.Contains(m, sub) {
			n++
		}
	}
	return n
}

// waitFor polls cond until it holds, failing the test after 30 s, scaled.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testkit.WaitFor(t, what, 30*time.Second, cond)
}

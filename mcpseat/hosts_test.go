package mcpseat_test

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"vesper/internal/testkit"
	"vesper/mcpseat"
	"vesper/seat"
)

// What hosts built on the MCP TypeScript SDK need (issue 24, item 7): the
// SDK checks every tool of tools/list against the MCP schema and gives up
// on the whole list when one does not fit, validates every structured
// content (a refusal's too) against the tool's output schema, and fails a
// request that stays unanswered 60 s. conformance/interop runs that SDK
// itself; these tests hold the same properties without node.

// inProcess serves a seat without relays to an in-process client: enough
// for tools/list, the instructions and the rules, which touch no relay.
func inProcess(t *testing.T) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	server := mcpseat.New(mcpseat.Config{Seat: &seat.Seat{Key: testkit.Key("hosts")}})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "hosts-test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// rawTools is tools/list as JSON objects, the way a client in another
// language reads it (no Go types in between to smooth anything over).
func rawTools(t *testing.T, cs *mcp.ClientSession) []map[string]any {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res.Tools)
	if err != nil {
		t.Fatal(err)
	}
	var tools []map[string]any
	if err := json.Unmarshal(b, &tools); err != nil {
		t.Fatal(err)
	}
	if len(tools) == 0 {
		t.Fatal("tools/list is empty")
	}
	return tools
}

// TestSchemasAreObjects walks every registered tool, so that a new one
// cannot regress: the root of its input schema and of its output schema is
// {"type": "object"} (the string, not a list of types such as a pointer's
// ["null", "object"]: MCP requires it and the TypeScript SDK rejects the
// whole tools/list otherwise), every tool has an output schema, and both
// an answer of the tool and a Refusal validate against it (the TypeScript
// SDK validates an isError result's structured content too).
func TestSchemasAreObjects(t *testing.T) {
	refusal := map[string]any{}
	b, _ := json.Marshal(mcpseat.Refusal{Rule: mcpseat.RuleBadArgument, Reason: "example"})
	if err := json.Unmarshal(b, &refusal); err != nil {
		t.Fatal(err)
	}
	for _, tool := range rawTools(t, inProcess(t)) {
		name, _ := tool["name"].(string)
		t.Run(name, func(t *testing.T) {
			for _, which := range []string{"inputSchema", "outputSchema"} {
				s, ok := tool[which].(map[string]any)
				if !ok {
					t.Errorf("%s: missing or not a JSON object: %v", which, tool[which])
					continue
				}
				if typ, ok := s["type"].(string); !ok || typ != "object" {
					t.Errorf("%s: root type %v, want the string \"object\"", which, s["type"])
				}
			}
			out := resolveRaw(t, tool["outputSchema"])
			if err := out.Validate(refusal); err != nil {
				t.Errorf("a refusal does not validate against the output schema: %v", err)
			}
		})
	}
}

// resolveRaw resolves a schema received as JSON.
func resolveRaw(t *testing.T, schema any) *jsonschema.Resolved {
	t.Helper()
	b, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("schema %s does not resolve: %v", b, err)
	}
	return rs
}

// names collects every property name of a schema, at any depth.
func names(v any, into map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		if props, ok := v["properties"].(map[string]any); ok {
			for k := range props {
				into[k] = true
			}
		}
		for _, sub := range v {
			names(sub, into)
		}
	case []any:
		for _, sub := range v {
			names(sub, into)
		}
	}
}

var backticked = regexp.MustCompile("`([^`]+)`")

// TestTextNamesExist: every name the instructions and the rules resource
// put in backticks is a tool, an argument of one or a field of an answer.
// The instructions once told the model to check a game_over field that no
// answer has (game_over is one of wait_turn's reasons).
func TestTextNamesExist(t *testing.T) {
	cs := inProcess(t)
	known := map[string]bool{}
	var fields []string
	for _, tool := range rawTools(t, cs) {
		known[tool["name"].(string)] = true
		names(tool["inputSchema"], known)
		names(tool["outputSchema"], known)
	}
	for f := range known {
		fields = append(fields, f)
	}
	slices.Sort(fields)
	rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: mcpseat.RulesURI})
	if err != nil {
		t.Fatal(err)
	}
	for what, text := range map[string]string{
		"instructions":   cs.InitializeResult().Instructions,
		mcpseat.RulesURI: rr.Contents[0].Text,
	} {
		found := backticked.FindAllStringSubmatch(text, -1)
		if len(found) < 5 {
			t.Errorf("%s: %d names in backticks; the text should name the tools and fields it relies on", what, len(found))
		}
		for _, m := range found {
			if !known[m[1]] {
				t.Errorf("%s names `%s`, which is no tool, argument or answer field (those are %v)", what, m[1], fields)
			}
		}
	}
	// The loop a model follows must name what wait_turn really answers.
	ins := cs.InitializeResult().Instructions
	for _, want := range []string{"`reason`", `"game_over"`, "`must_sign`", "`sign_result`", `"final"`, "`legal_moves`"} {
		if !strings.Contains(ins, want) {
			t.Errorf("instructions do not mention %s", want)
		}
	}
}

// TestWaitTurnTimeouts: a wait_turn without timeout_seconds waits 50 s,
// under the 60 s a TypeScript SDK host allows a plain request (the progress
// notification's total says how long the server will wait); with a
// progressToken it sends progress while waiting; and timeout_seconds 0,
// which once meant 300 s, is refused at once with a reason that says what
// to do instead.
func TestWaitTurnTimeouts(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	a := startAgent(t, r.URL(), "wait-timeouts")
	ch := ok[seat.Reply](a, "challenge", map[string]any{"game": "chess"})

	rf := refused(t, r, a, "wait_turn", map[string]any{"match": ch.Match, "timeout_seconds": 0}, mcpseat.RuleBadArgument)
	if !strings.Contains(rf.Reason, "timeout_seconds") || !strings.Contains(rf.Reason, "game_state") {
		t.Errorf("the refusal of timeout_seconds 0 does not say what to do instead: %q", rf.Reason)
	}
	refused(t, r, a, "wait_turn", map[string]any{"match": ch.Match, "timeout_seconds": -5}, mcpseat.RuleBadArgument)

	// Nobody accepts: the wait only ends when the client gives up, which it
	// does once the first notification (sent as the wait begins) is in.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan *mcp.ProgressNotificationParams, 1)
	a.onProgress(func(p *mcp.ProgressNotificationParams) {
		if p.ProgressToken == "default-wait" {
			select {
			case got <- p:
			default:
			}
		}
	})
	done := make(chan error, 1)
	go func() {
		p := &mcp.CallToolParams{Name: "wait_turn", Arguments: map[string]any{"match": ch.Match}}
		p.SetProgressToken("default-wait")
		_, err := a.cs.CallTool(ctx, p)
		done <- err
	}()
	select {
	case p := <-got:
		if p.Total <= 0 || p.Total > 50 {
			t.Errorf("a wait_turn without timeout_seconds waits %v s, want 50 at most (a host fails a call at 60 s)", p.Total)
		}
	case err := <-done:
		t.Fatalf("wait_turn returned before any progress: %v", err)
	case <-time.After(testkit.Scale(45 * time.Second)):
		t.Fatal("no progress notification for a call with a progressToken")
	}
	cancel()
	<-done
}

package mcpseat_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"vesper/nostr"
)

// The tools of issue 15, with exactly these names and arguments, and issue
// 27's (PROTOCOL.md section 8): play's comment and reasoning,
// record_reasoning and set_profile.
var wantTools = map[string][]string{
	"whoami":              {},
	"open_challenges":     {"for_me", "game"},
	"challenge":           {"game", "invite"},
	"accept":              {"match"},
	"my_games":            {},
	"game_state":          {"match"},
	"play":                {"comment", "match", "move", "reasoning"},
	"record_reasoning":    {"match", "reasoning"},
	"set_profile":         {"about", "harness", "model", "name", "provider", "version"},
	"wait_turn":           {"match", "seen", "timeout_seconds"},
	"resign":              {"match"},
	"offer_result":        {"match", "result"},
	"sign_result":         {"match"},
	"claim_timeout":       {"match"},
	"request_arbitration": {"match"},
}

// TestToolsListGolden checks tools/list of a real `vesper mcp` process: the
// fifteen tools with their argument names, every input and output schema a
// valid JSON Schema (it resolves with the SDK's own validator), and the whole
// list equal to testdata/tools.json (go test -run TestToolsListGolden -update
// rewrites it; review the diff).
func TestToolsListGolden(t *testing.T) {
	r := startRelay(t)
	a := startAgent(t, r.URL(), "golden")
	res, err := a.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		got[tool.Name] = tool
	}
	for name, args := range wantTools {
		tool := got[name]
		if tool == nil {
			t.Errorf("tool %s missing", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			in := resolve(t, tool.InputSchema)
			if in.Type != "object" {
				t.Errorf("input schema type %q, want object", in.Type)
			}
			var names []string
			for p := range in.Properties {
				names = append(names, p)
			}
			slices.Sort(names)
			if !slices.Equal(names, args) && !(len(names) == 0 && len(args) == 0) {
				t.Errorf("arguments %v, want %v", names, args)
			}
			if tool.OutputSchema == nil {
				t.Errorf("no output schema")
			} else {
				resolve(t, tool.OutputSchema)
			}
			if len(tool.Description) < 60 {
				t.Errorf("description too short to tell a model how to use it: %q", tool.Description)
			}
		})
	}
	if len(got) != len(wantTools) {
		t.Errorf("%d tools, want %d", len(got), len(wantTools))
	}
	// What a model must know to play is said where it reads it.
	for name, phrases := range map[string][]string{
		"challenge":    {"White in chess", "Black in gomoku"},
		"play":         {"UCI", "SAN", "h8", "24 hours", "legal_moves", "after the game"},
		"game_state":   {"final", "legal_moves"},
		"sign_result":  {"both players"},
		"offer_result": {"final"},
	} {
		for _, p := range phrases {
			if !strings.Contains(got[name].Description, p) {
				t.Errorf("%s description does not mention %q", name, p)
			}
		}
	}

	b, err := json.MarshalIndent(res.Tools, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	path := filepath.Join("testdata", "tools.json")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(b, want) {
		t.Errorf("tools/list differs from %s (run with -update and review the diff):\n%s", path, firstDiff(string(want), string(b)))
	}
}

// resolve checks that a schema as a client receives it is a JSON Schema the
// SDK's validator accepts.
func resolve(t *testing.T, schema any) *jsonschema.Schema {
	t.Helper()
	b, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("schema %s does not decode: %v", b, err)
	}
	if _, err := s.Resolve(nil); err != nil {
		t.Fatalf("schema %s does not resolve: %v", b, err)
	}
	return &s
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return "line " + itoa(i+1) + ":\n- " + x + "\n+ " + y
		}
	}
	return ""
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestWhoamiAndRules: whoami names the key's public key, never the secret;
// the rules resource and prompt carry the protocol for the model.
func TestWhoamiAndRules(t *testing.T) {
	r := startRelay(t)
	a := startAgent(t, r.URL(), "whoami")
	res := a.call("whoami", map[string]any{}, nil)
	if res.IsError {
		t.Fatalf("whoami refused: %s", text(res))
	}
	id := decode[struct{ Pubkey, Npub string }](t, res)
	if id.Pubkey != a.pk || id.Npub != nostr.Npub(a.pk) {
		t.Errorf("whoami = %+v, want pubkey %s", id, a.pk)
	}
	if s := text(res); strings.Contains(s, a.key.Nsec()) || strings.Contains(s, a.key.Hex()) {
		t.Errorf("whoami shows the secret key")
	}

	ctx := context.Background()
	rr, err := a.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "vesper://rules"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rr.Contents) != 1 {
		t.Fatalf("rules: %d contents", len(rr.Contents))
	}
	for _, p := range []string{"White in chess", "Black in gomoku", "24 hours", "FINAL", "sign_result", "legal_moves"} {
		if !strings.Contains(rr.Contents[0].Text, p) {
			t.Errorf("rules resource does not mention %q", p)
		}
	}
	pr, err := a.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "rules"})
	if err != nil {
		t.Fatal(err)
	}
	if len(pr.Messages) != 1 || pr.Messages[0].Content.(*mcp.TextContent).Text != rr.Contents[0].Text {
		t.Errorf("the rules prompt differs from the rules resource")
	}
	if ins := a.cs.InitializeResult().Instructions; !strings.Contains(ins, "wait_turn") {
		t.Errorf("instructions do not describe the loop: %q", ins)
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGamesOpenProfileFetch: the listing commands an agent starts from, the
// profile the site needs, and a match.json that `vesper verify` accepts.
func TestGamesOpenProfileFetch(t *testing.T) {
	e := newAgentEnv(t)
	chess := e.ok(t, "challenge", "--key", e.aKey)["match"].(string)
	invite := e.ok(t, "challenge", "--key", e.aKey, "--game", "gomoku", "--invite", e.b.PublicKey())["match"].(string)
	mine := e.ok(t, "challenge", "--key", e.bKey, "--game", "gomoku")["match"].(string)

	ids := func(out map[string]any, key string) string {
		var got []string
		for _, o := range out[key].([]any) {
			got = append(got, o.(map[string]any)["match"].(string))
		}
		return strings.Join(got, ",")
	}
	if got := ids(e.ok(t, "open", "--game", "chess"), "open"); got != chess {
		t.Fatalf("open --game chess: %s", got)
	}
	// For Bob: Alice's two (one open, one inviting him), not his own.
	got := ids(e.ok(t, "open", "--for-me", "--key", e.bKey), "open")
	if !strings.Contains(got, chess) || !strings.Contains(got, invite) || strings.Contains(got, mine) {
		t.Fatalf("open --for-me: %s", got)
	}
	e.ok(t, "accept", "--key", e.bKey, chess)
	g := e.ok(t, "games", "--key", e.bKey)
	if ids(g, "games") != mine+","+chess && ids(g, "games") != chess+","+mine {
		t.Fatalf("games: %v", g)
	}
	if ids(g, "invitations") != invite {
		t.Fatalf("invitations: %v", g["invitations"])
	}
	for _, row := range g["games"].([]any) {
		row := row.(map[string]any)
		if row["match"] == chess && (row["my_turn"] != false || row["my_color"] != "black") {
			t.Fatalf("chess row %v", row)
		}
	}
	if g := e.ok(t, "games", "--key", e.aKey); !strings.Contains(ids(g, "games"), chess) {
		t.Fatalf("alice's games %v", g)
	}

	p := e.ok(t, "profile", "--key", e.aKey, "--name", "alice-bot", "--about", "plays e4")
	if p["kind"].(float64) != 0 || len(p["accepted"].([]any)) != 1 {
		t.Fatalf("profile %v", p)
	}

	e.ok(t, "move", "--key", e.aKey, chess, "e4")
	r := vesper(t, nil, nil, "fetch", "--relays", e.relay.URL(), chess)
	if r.code != 0 {
		t.Fatalf("fetch: %d %s", r.code, r.stderr)
	}
	file := filepath.Join(t.TempDir(), "match.json")
	os.WriteFile(file, []byte(r.stdout), 0o644)
	v := vesper(t, nil, nil, "verify", "--json", file)
	if v.code != 0 || !strings.Contains(v.stdout, `"moves":["e2e4"]`) {
		t.Fatalf("verify of the fetched file: %d %s %s", v.code, v.stdout, v.stderr)
	}
}

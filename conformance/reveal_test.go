package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
	"vesper/site"
)

// TestRevealCheckedByNode checks the commitments of PROTOCOL.md section
// 8.2 in the site's match.json with Node's built-in crypto alone
// (reveal/check.js, written apart from the Go code): what the site calls
// verified must verify there, and a reveal with a wrong salt must not.
// Skipped without node (CI has it).
func TestRevealCheckedByNode(t *testing.T) {
	bin, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	const at = 1_780_000_000
	a, b := testkit.Key("reveal-a"), testkit.Key("reveal-b")
	m := testkit.NewMatch(a, b, nostr.GameChess, "", at)
	m.Accept(at + 10)
	var moves []*nostr.Event
	var salts, texts []string
	for i, san := range []string{"f3", "e5", "g4", "Qh4#"} {
		k := a
		if i%2 == 1 {
			k = b
		}
		// Texts with what JSON escapes, and beyond the BMP.
		salt, text := nostr.NewSalt(), "plan \"quoted\" \\ <b>&\n\ttab é 🐴 "+san
		ev := m.Add(k, nostr.WithTalk(nostr.NewMove(m.ID, i+1, san, at+20+int64(i)), nostr.Talk{
			Comment: "c" + san, Reasoning: nostr.ReasoningHash(salt, text)}))
		moves, salts, texts = append(moves, ev), append(salts, salt), append(texts, text)
	}
	s, err := match.Fold(m.ID, m.Events, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := nostr.Result{Result: "second", Reason: "checkmate", Plies: s.Plies(), FinalHash: s.FinalHash()}
	m.Result(a, res, at+30)
	m.Result(b, res, at+31)
	reveal := func(k nostr.SecretKey, t0 int64, entries ...nostr.RevealEntry) {
		evs, err := nostr.NewReveal(m.ID, entries, t0)
		if err != nil {
			t.Fatal(err)
		}
		m.Add(k, evs[0])
	}
	entry := func(i int) nostr.RevealEntry {
		return nostr.RevealEntry{Event: moves[i].ID, Salt: salts[i], Text: texts[i]}
	}
	reveal(a, at+40, entry(0), entry(2))
	wrong := entry(1)
	wrong.Salt = strings.Repeat("0", nostr.SaltLen)
	reveal(b, at+41, entry(3), wrong)
	if s, err = match.Fold(m.ID, m.Events, nil); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "site")
	in := site.Input{States: []*match.State{s}, Now: at + 86400, ListAll: true}
	in.RatingGames = site.RatingGames(in.States)
	if _, err := site.Build(in, out); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(out, "m", m.ID+".json")

	_, self, _, _ := runtime.Caller(0)
	cmd := exec.CommandContext(context.Background(), bin, filepath.Join(filepath.Dir(self), "reveal", "check.js"), file)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	got := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	for sc.Scan() {
		var line struct {
			Event string `json:"event"`
			OK    bool   `json:"ok"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("node printed %q: %v", sc.Text(), err)
		}
		got[line.Event] = line.OK
	}
	want := map[string]bool{moves[0].ID: true, moves[2].ID: true, moves[3].ID: true, moves[1].ID: false}
	for id, ok := range want {
		if v, seen := got[id]; !seen || v != ok {
			t.Errorf("node: event %s verified %v (seen %v), want %v", id, v, seen, ok)
		}
	}
	// And the site says the same in reasoning.json.
	raw, err := os.ReadFile(filepath.Join(out, "m", m.ID+".reasoning.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rf struct {
		Entries []struct{ Event, Status string } `json:"entries"`
	}
	if err := json.Unmarshal(raw, &rf); err != nil {
		t.Fatal(err)
	}
	for _, e := range rf.Entries {
		if (e.Status == "verified") != want[e.Event] {
			t.Errorf("site: %s is %s, node says verified %v", e.Event, e.Status, want[e.Event])
		}
	}
}

package model_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/internal/testkit/playtest"
	"vesper/nostr"
	"vesper/play"
	"vesper/play/model"
	"vesper/play/model/standin"
)

// The shared setup of the runner's tests (internal/testkit/playtest).
var (
	startRelay = playtest.Relay
	fold       = playtest.Fold
)

// run starts a runner (one game, invitations taken, unless cfg's policy
// says otherwise); it returns its directory.
func run(t *testing.T, url string, key nostr.SecretKey, cfg play.Config) string {
	t.Helper()
	if cfg.Policy.MaxGames == 0 {
		cfg.Policy = play.Policy{MaxGames: 1, Invitations: true}
	}
	_, dir := playtest.Run(t, url, key, cfg)
	return dir
}

// matchOf waits for the one match between the two runners and returns it.
func matchOf(t *testing.T, dir string) string {
	t.Helper()
	var id string
	testkit.WaitFor(t, "the game", 2*time.Minute, func() bool {
		es, _ := os.ReadDir(filepath.Join(dir, "games"))
		for _, e := range es {
			if n, ok := strings.CutSuffix(e.Name(), ".jsonl"); ok {
				id = n
				return true
			}
		}
		return false
	})
	return id
}

// TestModelGameAgainstTheEngine: a whole game, the model (through the
// OpenAI SDK against the stand-in) against the built-in engine, ends
// final; every model move carries usage whose output tokens add up to
// what the endpoint reported, one answer refused (an illegal move) had its
// call summed into its move's usage with attempts 1, and the move's comment
// is published.
func TestModelGameAgainstTheEngine(t *testing.T) {
	testkit.QuickLoopSkips(t)
	url := startRelay(t)
	mk, ek := testkit.Key("model-player"), testkit.Key("engine-player")
	srv := standin.OpenAI(t, key, "gpt-4o")
	run(t, url, ek, play.Config{NewMover: func(string) play.Mover { return &play.Builtin{Limits: play.Limits{Nodes: 300}} }})
	ledger := &model.Ledger{}
	dir := run(t, url, mk, play.Config{Challenge: []string{ek.PublicKey()}, OpenGame: nostr.GameChess, Retries: 3,
		NewMover: func(string) play.Mover {
			p := player(model.NewOpenAI(srv.URL, key, nil), "openai/gpt-4o")
			p.Ledger = ledger
			return p
		}})
	id := matchOf(t, dir)
	testkit.WaitFor(t, "the model's first move", time.Minute, func() bool { return fold(t, url, id).Plies() >= 1 })
	// One answer names an illegal move: refused, asked again.
	srv.Script(standin.Fault{Text: "Thinking... {\"move\": \"e1e8\", \"comment\": \"bold\"}"})
	testkit.WaitFor(t, "the final result", 3*time.Minute, func() bool { return fold(t, url, id).Final })
	st := fold(t, url, id)
	total, refused, moves := 0.0, 0, 0
	byID := map[string]*nostr.Event{}
	for _, ev := range st.Events {
		byID[ev.ID] = ev
	}
	for i, evID := range st.MoveEvents {
		ev := byID[evID]
		if ev.PubKey != mk.PublicKey() || ev.Content == nostr.ResignContent {
			continue
		}
		moves++
		u, ok, err := nostr.ReadUsage(ev)
		if !ok || err != nil || u.OutputTokens == nil || u.CostUSD == nil || u.LatencyMS == nil {
			t.Fatalf("model move %d (%s) has no full usage: %s %v", i+1, ev.Content, u.JSON(), err)
		}
		total += *u.OutputTokens
		n, ok, _ := nostr.Attempts(ev)
		if !ok {
			t.Fatalf("model move %d has no attempts tag", i+1)
		}
		refused += n
		if c, _ := nostr.Comment(ev); c == "" {
			t.Fatalf("model move %d has no comment", i+1)
		}
		if _, ok := nostr.Reasoning(ev); !ok {
			t.Fatalf("model move %d commits no reasoning", i+1)
		}
	}
	if moves == 0 || int(total) != srv.Total() || refused != 1 {
		t.Fatalf("%d model moves with %v output tokens and %d refused answers; the endpoint reported %d output tokens", moves, total, refused, srv.Total())
	}
	t.Logf("%d plies, %s by %s; %d model moves, %v output tokens, $%.6f", st.Plies(), st.Result, st.Reason, moves, total, ledger.Total())
}

package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/testkit"
	"vesper/nostr"
	"vesper/nostr/relay"
	"vesper/play/model"
	"vesper/play/model/standin"
	"vesper/relayd"
)

// TestPlayModelAgainstTheEngine is issue 36's "done when": `vesper play
// --model openai/...` against a stand-in endpoint (OPENAI_BASE_URL,
// OPENAI_API_KEY) plays a whole game against the built-in engine that
// ends final; every model move carries usage whose output tokens add up to
// what the endpoint reported; the thinking is streamed as "thinking" lines;
// the key's profile states the model and the prompt template; the API key
// is nowhere in the output or the records.
func TestPlayModelAgainstTheEngine(t *testing.T) {
	testkit.QuickLoopSkips(t)
	const apiKey = "sk-cli-secret-4242"
	srv := standin.OpenAI(t, apiKey, "gpt-4o-mini")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", apiKey)
	url := startRelays(t, 1, relayd.Options{})[0].URL()
	me, house := testkit.Key("model runner"), testkit.Key("house runner")
	base := t.TempDir()
	startRunner(t, filepath.Join(base, "house"), url, writeKey(t, house), "--engine", "builtin", "--nodes", "300")
	dir := filepath.Join(base, "model")
	a := startRunner(t, dir, url, writeKey(t, me), "--model", "openai/gpt-4o-mini", "--temperature", "0.2",
		"--series-opponent", house.PublicKey(), "--series-games", "1", "--series-game", "chess")
	a.wait(t, 5*time.Minute)
	ids := seriesMatches(t, dir)
	if len(ids) != 1 {
		t.Fatalf("%d games, want 1", len(ids))
	}
	st := fetchFold(t, url, ids[0])
	if !st.Final {
		t.Fatalf("not final: %+v", st.Summary(time.Now().Unix()))
	}
	byID := map[string]*nostr.Event{}
	for _, ev := range st.Events {
		byID[ev.ID] = ev
	}
	total, moves := 0.0, 0
	for _, id := range st.MoveEvents {
		ev := byID[id]
		if ev.PubKey != me.PublicKey() || ev.Content == nostr.ResignContent {
			continue
		}
		moves++
		u, ok, err := nostr.ReadUsage(ev)
		if !ok || err != nil || u.OutputTokens == nil || u.CostUSD == nil {
			t.Fatalf("model move %s without usage and cost: %s %v", ev.Content, u.JSON(), err)
		}
		total += *u.OutputTokens
	}
	if moves == 0 || int(total) != srv.Total() {
		t.Fatalf("%d model moves, %v output tokens; the endpoint reported %d", moves, total, srv.Total())
	}
	thinking := 0
	for _, l := range a.lines(t) {
		if l.Type == "thinking" && l.Match == ids[0] {
			thinking++
		}
	}
	if thinking < moves {
		t.Fatalf("%d thinking lines for %d model moves", thinking, moves)
	}
	got, err := relay.Fetch(context.Background(), []string{url}, []gn.Filter{{Kinds: []int{nostr.KindProfile}, Authors: []string{me.PublicKey()}}}, testkit.Scale(10*time.Second))
	if err != nil || len(got) == 0 {
		t.Fatalf("no profile: %v", err)
	}
	ag, ok, _ := nostr.ReadAgent(got[0].Event.Content)
	if !ok || ag.Model != "gpt-4o-mini" || ag.Provider != "openai" || ag.Harness != model.Harness() {
		t.Fatalf("profile agent %+v, want the model and %q", ag, model.Harness())
	}
	// The generation settings are in the record; the key is nowhere.
	rec, _ := os.ReadFile(filepath.Join(dir, "games", ids[0]+".jsonl"))
	if !strings.Contains(string(rec), "temperature=0.2") || !strings.Contains(string(rec), model.TemplateVersion) {
		t.Fatalf("the record does not name the settings and the template:\n%s", rec)
	}
	_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), apiKey) {
				t.Errorf("%s holds the API key", p)
			}
		}
		return nil
	})
}

// TestPlayModelRefusedKeyEndsTheRun: a key the API refuses (401) ends the
// run at the first decision with exit 5 and a message naming the variable
// to set, without the key.
func TestPlayModelRefusedKeyEndsTheRun(t *testing.T) {
	const wrong = "sk-wrong-key-31337"
	srv := standin.OpenAI(t, "sk-right", "m")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", wrong)
	url := startRelays(t, 1, relayd.Options{})[0].URL()
	me, house := testkit.Key("model runner 401"), testkit.Key("house runner 401")
	base := t.TempDir()
	startRunner(t, filepath.Join(base, "house"), url, writeKey(t, house), "--engine", "builtin", "--nodes", "300")
	dir := filepath.Join(base, "model")
	a := startRunner(t, dir, url, writeKey(t, me), "--model", "openai/m", "--series-opponent", house.PublicKey(), "--series-games", "1")
	var err error
	select {
	case err = <-a.done:
		a.done <- nil
	case <-time.After(testkit.Scale(2 * time.Minute)):
		t.Fatal("the run did not end on a refused key")
	}
	stderr, _ := os.ReadFile(filepath.Join(dir, "err.log"))
	if code := exitCode(err); code != exitKey || !strings.Contains(string(stderr), "set OPENAI_API_KEY") || strings.Contains(string(stderr), wrong) {
		t.Fatalf("exit %d (%v), stderr %s", code, err, stderr)
	}
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

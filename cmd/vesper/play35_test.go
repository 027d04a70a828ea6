package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/internal/testkit/playtest"
	"vesper/match"
	"vesper/nostr"
	"vesper/play"
	"vesper/relayd"
	"vesper/reveal"
)

// Issue 35: the runner's word is the verifiers' word. These tests play
// real `vesper play` processes against each other on a relay and hold
// every line they print against `vesper verify` of the relay's events.

// agentPath is a test agent of testdata/agents.
func agentPath(t *testing.T, name string) string {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("testdata", "agents", name))
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// verifierSummary is `vesper fetch` of a match from the relay, then `vesper
// verify --json` of that file: the summary any verifier computes.
func verifierSummary(t *testing.T, url, id string) map[string]any {
	t.Helper()
	f := vesper(t, nil, nil, "fetch", "--relays", url, id)
	if f.code != 0 {
		t.Fatalf("fetch %s: %s", id, f.stderr)
	}
	path := filepath.Join(t.TempDir(), id+".json")
	if err := os.WriteFile(path, []byte(f.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	v := vesper(t, nil, nil, "verify", "--json", path)
	var sum map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(v.stdout)), &sum); err != nil {
		t.Fatalf("verify %s: %v (%s %s)", id, err, v.stdout, v.stderr)
	}
	return sum
}

// outcomeFor is a verifier summary's result from player pk's side, "" when
// the summary is not final.
func outcomeFor(sum map[string]any, pk string) string {
	if sum["final"] != true {
		return ""
	}
	res, _ := sum["result"].(string)
	switch {
	case res == match.Draw:
		return play.OutcomeDraw
	case sum[res] == pk:
		return play.OutcomeWin
	}
	return play.OutcomeLoss
}

// brief is the part of a summary a failure shows.
func brief(sum map[string]any) string {
	return fmt.Sprintf("final %v, result %v, reason %v, plies %v", sum["final"], sum["result"], sum["reason"], sum["plies"])
}

// checkRunnerWord holds a runner's lines against the verifier: every game
// it printed final is final for `vesper verify` with the same outcome,
// every series line is the W-D-L of the games it had printed final, and
// the last one is the verifier's W-D-L over the whole series.
func checkRunnerWord(t *testing.T, url, pk string, ls []play.Line, ids []string) {
	t.Helper()
	sums := map[string]map[string]any{}
	sum := func(id string) map[string]any {
		if sums[id] == nil {
			sums[id] = verifierSummary(t, url, id)
		}
		return sums[id]
	}
	var sc play.Score
	for _, l := range ls {
		switch l.Type {
		case "final":
			if got := outcomeFor(sum(l.Match), pk); got != l.Result {
				t.Errorf("the runner printed %s final (%s); the verifier says %q (%s)", l.Match, l.Result, got, brief(sum(l.Match)))
			}
			sc.Add(l.Result)
		case "series", "series_over":
			if *l.Score != sc {
				t.Errorf("series line %s, after finals %+v", l.Series, sc)
			}
		}
	}
	var want play.Score
	for _, id := range ids {
		want.Add(outcomeFor(sum(id), pk))
	}
	if last := lastSeries(t, ls); *last.Score != want || want.Games() != len(ids) {
		t.Errorf("series over %s; the verifier's W-D-L over %d games is %+v", last.Series, len(ids), want)
	}
}

// reveals folds a match with its reveal events and checks them.
func reveals(t *testing.T, url, id string) (*match.State, reveal.Report) {
	t.Helper()
	return playtest.Reveals(t, url, id)
}

// noEarlyReveal: every reasoning pk committed is revealed, verified and
// not early (no reveal precedes the end of its game).
func noEarlyReveal(t *testing.T, url, id, pk string) {
	t.Helper()
	_, rep := reveals(t, url, id)
	for _, e := range rep.Entries {
		if e.Author == pk && e.Status != reveal.Verified {
			t.Errorf("match %s: reasoning of %s is %s, want verified after the end", id, e.Event, e.Status)
		}
	}
}

// TestPlayOfferingAgainstAccepting is issue 35's first "Done when": an
// agent that offers a draw with every move against one that accepts every
// offer. Every game either runner prints final is final for `vesper
// verify` with the same result, every series line is the verifier's W-D-L,
// and no reveal comes before the end of its game.
func TestPlayOfferingAgainstAccepting(t *testing.T) {
	testkit.QuickLoopSkips(t)
	url := startRelays(t, 1, relayd.Options{})[0].URL()
	ka, kb := testkit.Key("offering runner"), testkit.Key("accepting runner")
	base := t.TempDir()
	const games = "4"
	a := startRunner(t, filepath.Join(base, "a"), url, writeKey(t, ka), "--agent", agentPath(t, "offers_draw.sh"),
		"--series-opponent", kb.PublicKey(), "--series-games", games, "--series-game", "gomoku", "--max-games", games)
	// The accepting agent thinks before a move, as a model does, and an
	// offer posted after the offerer's move comes meanwhile: the think
	// starts once the offerer's lines say its offer is on the relay (not a
	// fixed pause from the request, which a busy machine outlasts), and
	// lasts a second for the relay to push it to the accepting runner.
	t.Setenv("AGENT_OFFERS_FROM", a.out)
	t.Setenv("AGENT_THINK", "1")
	b := startRunner(t, filepath.Join(base, "b"), url, writeKey(t, kb), "--agent", agentPath(t, "accepts_offers.sh"),
		"--series-opponent", ka.PublicKey(), "--series-games", games, "--series-game", "gomoku", "--series-first", "black", "--max-games", games)
	a.wait(t, 3*time.Minute)
	b.wait(t, 3*time.Minute)
	ids := seriesMatches(t, filepath.Join(base, "a"))
	checkRunnerWord(t, url, ka.PublicKey(), a.lines(t), ids)
	checkRunnerWord(t, url, kb.PublicKey(), b.lines(t), seriesMatches(t, filepath.Join(base, "b")))
	agreed := 0
	for _, id := range ids {
		if sum := verifierSummary(t, url, id); sum["reason"] == string(match.ReasonAgreement) {
			agreed++
		}
		noEarlyReveal(t, url, id, ka.PublicKey())
		noEarlyReveal(t, url, id, kb.PublicKey())
		noDoubleMove(t, url, id, ka.PublicKey())
	}
	if agreed == 0 {
		t.Error("no game was drawn by agreement: the accepting agent never saw an offer")
	}
}

// TestPlayOfferingAgainstTheEngine: the same offering agent in chess
// against the built-in engine taking a draw within --draw-cp of even:
// some offers are declined and the game goes on; the runners' word is the
// verifier's all the same.
func TestPlayOfferingAgainstTheEngine(t *testing.T) {
	testkit.QuickLoopSkips(t)
	url := startRelays(t, 1, relayd.Options{})[0].URL()
	ka, kb := testkit.Key("offering runner"), testkit.Key("engine runner")
	base := t.TempDir()
	a := startRunner(t, filepath.Join(base, "a"), url, writeKey(t, ka), "--agent", agentPath(t, "offers_draw.sh"),
		"--series-opponent", kb.PublicKey(), "--series-games", "2", "--series-game", "chess", "--max-games", "2")
	b := startRunner(t, filepath.Join(base, "b"), url, writeKey(t, kb), "--engine", "builtin", "--nodes", "300", "--draw-cp", "40",
		"--series-opponent", ka.PublicKey(), "--series-games", "2", "--series-game", "chess", "--series-first", "black", "--max-games", "2")
	a.wait(t, 5*time.Minute)
	b.wait(t, 5*time.Minute)
	ids := seriesMatches(t, filepath.Join(base, "a"))
	checkRunnerWord(t, url, ka.PublicKey(), a.lines(t), ids)
	checkRunnerWord(t, url, kb.PublicKey(), b.lines(t), seriesMatches(t, filepath.Join(base, "b")))
	for _, id := range ids {
		noEarlyReveal(t, url, id, ka.PublicKey())
		noDoubleMove(t, url, id, ka.PublicKey())
	}
}

// killsFromEnv is how often TestPlayKillAgentRunner kills the runner:
// VESPER_PLAY_KILLS, or a few for the suite's time (the 20 is the
// documented command in docs/PERFORMANCE.md).
func killsFromEnv() int {
	if n, err := strconv.Atoi(os.Getenv("VESPER_PLAY_KILLS")); err == nil && n > 0 {
		return n
	}
	return 6
}

// alive reports whether pid is a live process (a zombie waiting for its
// reaper is not).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return err != nil && !errors.Is(err, os.ErrNotExist)
	}
	// pid (comm) STATE ...: comm may hold spaces, so read after the last ')'.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z' && s[i+2] != 'X'
	}
	return true
}

// TestPlayKillAgentRunner: a runner playing a series with an agent is
// killed with SIGKILL again and again, each time as soon as it printed a
// new move, and restarted; at the end every move it signed carries the
// agent's comment and committed reasoning (none lost by a re-send), every
// reasoning is revealed and verifies, there is one move event per ply,
// and no agent process outlives the runner that started it.
func TestPlayKillAgentRunner(t *testing.T) {
	testkit.QuickLoopSkips(t)
	url := startRelays(t, 1, relayd.Options{})[0].URL()
	me, house := testkit.Key("killed agent runner"), testkit.Key("house runner")
	base := t.TempDir()
	dir := filepath.Join(base, "me")
	pids := filepath.Join(base, "pids")
	t.Setenv("AGENT_PIDS", pids)
	key := writeKey(t, me)
	// Longer series for more kills (the documented 20-kill command).
	games := "3"
	if killsFromEnv() > 10 {
		games = strconv.Itoa(killsFromEnv())
	}
	args := []string{"--agent", agentPath(t, "accepts_offers.sh"), "--series-opponent", house.PublicKey(),
		"--series-games", games, "--series-game", "gomoku", "--max-games", games}
	hb := startRunner(t, filepath.Join(base, "house"), url, writeKey(t, house), "--engine", "builtin", "--nodes", "800",
		"--series-opponent", me.PublicKey(), "--series-games", games, "--series-game", "gomoku", "--series-first", "black", "--max-games", games)
	moves := func(p *runnerProc) int {
		n := 0
		for _, l := range p.lines(t) {
			if l.Type == "move" {
				n++
			}
		}
		return n
	}
	var p *runnerProc
	kills := 0
	for k := range killsFromEnv() {
		p = startRunner(t, dir, url, key, args...)
		before := moves(p)
		over := false
		waitFor(t, fmt.Sprintf("a new move before kill %d", k+1), 2*time.Minute, func() bool {
			for _, l := range p.lines(t) {
				over = over || l.Type == "series_over"
			}
			return over || moves(p) > before
		})
		if over {
			break
		}
		p.kill()
		kills++
		b, _ := os.ReadFile(pids)
		for _, f := range strings.Fields(string(b)) {
			pid, _ := strconv.Atoi(f)
			waitFor(t, fmt.Sprintf("agent %d to die with its runner", pid), 30*time.Second, func() bool { return !alive(pid) })
		}
	}
	t.Logf("%d kills", kills)
	if kills < min(killsFromEnv(), 3) {
		t.Fatalf("only %d kills before the series ended", kills)
	}
	p = startRunner(t, dir, url, key, args...)
	p.wait(t, 5*time.Minute)
	hb.wait(t, 2*time.Minute)
	ids := seriesMatches(t, dir)
	if n, _ := strconv.Atoi(games); len(ids) != n {
		t.Fatalf("series of %d games, want %d", len(ids), n)
	}
	for _, id := range ids {
		st, rep := reveals(t, url, id)
		if !st.Final {
			t.Errorf("%s not final", id)
		}
		noDoubleMove(t, url, id, me.PublicKey())
		mine := forMatch(authored(t, url, nostr.KindMove, me.PublicKey()), id)
		counted := 0
		for _, ev := range st.MoveEvents {
			for _, m := range mine {
				if m.ID == ev {
					counted++
				}
			}
		}
		if counted != len(mine) {
			t.Errorf("%s: %d move events by the runner, %d counted: one event per ply", id, len(mine), counted)
		}
		for _, ev := range mine {
			c, _ := nostr.Comment(ev)
			if _, ok := nostr.Reasoning(ev); !ok || c == "" {
				t.Errorf("%s: move %s (%s) lost its comment %q or reasoning", id, ev.ID, ev.Content, c)
			}
		}
		for _, e := range rep.Entries {
			if e.Author == me.PublicKey() && e.Status != reveal.Verified {
				t.Errorf("%s: reasoning of %s is %s, want verified", id, e.Event, e.Status)
			}
		}
	}
	checkRunnerWord(t, url, me.PublicKey(), p.lines(t), ids)
}

// TestPlayProseAnswer: an agent that thinks out loud and gives its move in
// a fenced JSON block is played at once, and the record says which form
// was read.
func TestPlayProseAnswer(t *testing.T) {
	testkit.QuickLoopSkips(t)
	_, id, dir := agentGame(t, "prose.sh")
	ds := decisions(t, dir, id)
	if len(ds) == 0 {
		t.Fatal("no decisions recorded")
	}
	for _, d := range ds {
		if len(d.Attempts) != 1 || d.Attempts[0].Kind != "" || d.Attempts[0].Form != play.FormFenced || d.Fallback != "" {
			t.Fatalf("ply %d: record %+v, want one attempt read from a fenced block", d.Ply, d)
		}
	}
}

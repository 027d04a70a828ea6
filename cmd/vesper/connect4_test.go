package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
	"vesper/relayd"
)

// Issue 40: a game name that is not one of match.Games is refused at once,
// exit 2, with a message naming the games, wherever a command takes one.
// Before, `vesper play --series-game foo` ran silently and never exited:
// the command here gets a scaled minute, and the test fails if it is
// still running then.
func TestUnknownGameRefusedAtOnce(t *testing.T) {
	url := startRelays(t, 1, relayd.Options{})[0].URL()
	me, opp := testkit.Key("c4 refused me"), testkit.Key("c4 refused opp")
	key := writeKey(t, me)
	base := []string{"--relays", url, "--key", key}
	play := func(extra ...string) []string {
		return append(append([]string{"play", "--dir", t.TempDir(), "--engine", "builtin", "--series-opponent", opp.PublicKey()}, base...), extra...)
	}
	cases := []struct {
		name string
		args []string
		want string // in stderr, beside the registry's list of games
	}{
		{"play --series-game foo", play("--series-game", "foo"), `--series-game "foo"`},
		{"play --game foo", play("--game", "chess", "--game", "foo"), `--game "foo"`},
		{"play --open-game foo", play("--open-game", "foo"), `--open-game "foo"`},
		{"play --series-game Connect4", play("--series-game", "Connect4"), `"Connect4"`},
		{"challenge --game foo", append([]string{"challenge", "--game", "foo"}, base...), `--game "foo"`},
		{"open --game foo", append([]string{"open", "--game", "foo"}, base...), `--game "foo"`},
		{"demo --game foo", []string{"demo", "--game", "foo", "--data", t.TempDir()}, `--game "foo"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(time.Minute))
			defer cancel()
			cmd := exec.CommandContext(ctx, binPath, c.args...)
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			if ctx.Err() != nil {
				t.Fatalf("still running after %v: %s", testkit.Scale(time.Minute), out.String())
			}
			ee, ok := err.(*exec.ExitError)
			if !ok || ee.ExitCode() != exitUsage {
				t.Fatalf("exit %v, want %d: %s", err, exitUsage, out.String())
			}
			if !strings.Contains(out.String(), c.want) || !strings.Contains(out.String(), match.KindList()) {
				t.Errorf("message %q names neither %s nor the games %s", out.String(), c.want, match.KindList())
			}
		})
	}
}

// A series of a game the mover does not play would have its games
// declined one by one and never end: the runner refuses it at start.
func TestSeriesOfAGameTheMoverDoesNotPlay(t *testing.T) {
	url := startRelays(t, 1, relayd.Options{})[0].URL()
	key := writeKey(t, testkit.Key("c4 uci"))
	r := vesper(t, nil, nil, "play", "--relays", url, "--key", key, "--dir", t.TempDir(), "--uci", "/bin/false",
		"--series-opponent", testkit.Key("c4 uci opp").PublicKey(), "--series-game", nostr.GameConnect4)
	if r.code != exitUsage || !strings.Contains(r.stderr, `"connect4" is not one this player plays`) {
		t.Fatalf("exit %d, stderr %q; want %d and a refusal of the series' game", r.code, r.stderr, exitUsage)
	}
}

// Issue 40: two runners with the built-in engine play a Connect Four
// series to final results, sides swapped.
func TestPlaySeriesConnect4(t *testing.T) {
	testkit.QuickLoopSkips(t)
	url := startRelays(t, 1, relayd.Options{})[0].URL()
	red, yellow := testkit.Key("c4 series a"), testkit.Key("c4 series b")
	base := t.TempDir()
	dir := filepath.Join(base, "a")
	common := []string{"--engine", "builtin", "--nodes", "2000", "--series-games", "2", "--series-game", nostr.GameConnect4, "--max-games", "2"}
	a := startRunner(t, dir, url, writeKey(t, red), append(common, "--series-opponent", yellow.PublicKey())...)
	b := startRunner(t, filepath.Join(base, "b"), url, writeKey(t, yellow), append(common, "--series-opponent", red.PublicKey(), "--series-first", "second")...)
	a.wait(t, 5*time.Minute)
	b.wait(t, 5*time.Minute)
	ids := seriesMatches(t, dir)
	if len(ids) != 2 {
		t.Fatalf("series of %d games, want 2", len(ids))
	}
	for i, id := range ids {
		st := fetchFold(t, url, id)
		if st.Kind != nostr.GameConnect4 || !st.Final || st.Plies() > 42 {
			t.Errorf("game %d (%s): kind %s, final %v, %d plies", i+1, id, st.Kind, st.Final, st.Plies())
		}
		if st.Reason != match.ReasonFourInARow && st.Reason != match.ReasonBoardFull {
			t.Errorf("game %d ended by %s, want a rule of section 5.1", i+1, st.Reason)
		}
	}
	if sc := lastSeries(t, a.lines(t)).Score; sc.Games() != 2 {
		t.Fatalf("score over %d games, want 2", sc.Games())
	}
}

// Every game of match.Games has a demo script, legal under the fold's
// rules, that ends the game by rule on its last move, with one talk line
// a ply.
func TestEveryGameHasADemo(t *testing.T) {
	for _, g := range match.Games() {
		sc, ok := demoScripts[g.Kind]
		if !ok {
			t.Errorf("no demo for %s", g.Kind)
			continue
		}
		b := g.New()
		for i, mv := range sc.moves {
			if over, _, _ := b.Outcome(); over {
				t.Fatalf("%s: over before ply %d", g.Kind, i+1)
			}
			if _, err := b.Play(mv); err != nil {
				t.Fatalf("%s ply %d %q: %v", g.Kind, i+1, mv, err)
			}
		}
		if over, _, _ := b.Outcome(); !over || len(sc.talk) != len(sc.moves) {
			t.Errorf("%s: over %v after the script, %d talk lines for %d moves", g.Kind, over, len(sc.talk), len(sc.moves))
		}
	}
}

// Issue 40: `vesper demo --game connect4` plays a Connect Four game to a
// final result and builds the site with its page.
func TestDemoConnect4(t *testing.T) {
	data := t.TempDir()
	r := vesper(t, nil, nil, "demo", "--game", nostr.GameConnect4, "--data", data)
	if r.code != 0 {
		t.Fatalf("demo: status %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"alice challenged bob", "ply 7: d", "game over: first wins by four_in_a_row", "result final by signatures",
		"reasoning revealed after the final result: 7 of 7 entries verified"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("demo output lacks %q:\n%s", want, r.stdout)
		}
	}
	pages, _ := filepath.Glob(filepath.Join(data, "site", "m", "*.html"))
	if len(pages) == 0 {
		t.Fatalf("no match page in the site")
	}
}

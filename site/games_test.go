package site

import (
	"os"
	"strings"
	"testing"

	"vesper/match"
)

// Every game the fold plays has a name, side names and a board here.
func TestEveryGameHasABoardAndNames(t *testing.T) {
	defs := newBoardDefs()
	for _, g := range match.Games() {
		if _, ok := replays[g.Kind]; !ok {
			t.Errorf("no board for %s", g.Kind)
			continue
		}
		r := replayGame(g.Kind, nil, defs)
		if r.Err != "" || len(r.Steps) != 1 || r.Final() == "" {
			t.Errorf("%s start: err %q, %d steps", g.Kind, r.Err, len(r.Steps))
		}
		if first, second := sides(g.Kind); first == "" || second == "" || first == second || gameName(g.Kind) != g.Name {
			t.Errorf("%s: name %q, sides %q, %q", g.Kind, gameName(g.Kind), first, second)
		}
	}
	if first, second := sides("gomoku"); first != "Black" || second != "White" {
		t.Errorf("gomoku sides %q, %q; want Black, White", first, second)
	}
}

// A kind that is no game is never drawn or named as chess.
func TestUnknownGameIsNotChess(t *testing.T) {
	r := replayGame("go", []string{"e2e4"}, newBoardDefs())
	if !strings.Contains(r.Err, `"go"`) || len(r.Steps) != 0 {
		t.Errorf("replay of go: err %q, %d steps", r.Err, len(r.Steps))
	}
	if name := gameName("go"); name == "Chess" {
		t.Errorf("gameName(go) = %q", name)
	}
	if first, _ := sides("go"); first == "White" {
		t.Errorf("sides(go) start with %q", first)
	}
}

// Issue 26 item 11: the how-to names gomoku's sides as the CLI and the
// MCP tools do (match.Spec): the first player is Black, never X.
func TestHowToGomokuSides(t *testing.T) {
	page, err := os.ReadFile("testdata/golden/how-to-play.html")
	if err != nil {
		t.Fatal(err)
	}
	first, second := sides("gomoku")
	for _, want := range []string{first + " in gomoku", "the second player is Black in chess, " + second + " in gomoku"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("how-to does not say %q", want)
		}
	}
	if strings.Contains(string(page), "X in gomoku") || strings.Contains(string(page), "O in gomoku") {
		t.Error("how-to names gomoku's sides X and O")
	}
}

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
		if r.Err != "" || len(r.Steps) != 1 || r.Board == "" {
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

// Issue 39 item 3: the pages that name the games follow the registry:
// the menu links every game's ratings, the how-to gives every game's
// challenge content and sides, the index names every game.
func TestPagesNameEveryGame(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile("testdata/golden/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	howto, index := read("how-to-play.html"), read("index.html")
	for _, g := range match.Games() {
		menu := `<a href="ratings/` + g.Kind + `.html">` + g.Name + ` ratings</a>`
		for page, text := range map[string]string{"how-to": howto, "index": index} {
			if !strings.Contains(text, menu) {
				t.Errorf("the %s page's menu lacks %s", page, menu)
			}
			if !strings.Contains(text, g.Noun) && !strings.Contains(text, g.Name) {
				t.Errorf("the %s page does not name %s", page, g.Name)
			}
		}
		for _, want := range []string{`<code>{"game": "` + g.Kind + `"}</code>`, match.SidesText(match.First), match.SidesText(match.Second)} {
			if !strings.Contains(howto, want) {
				t.Errorf("the how-to lacks %s", want)
			}
		}
	}
}

// A Connect Four replay has a board per ply, Red's discs first, and
// normalizes the columns as the fold does.
func TestReplayConnect4(t *testing.T) {
	r := replayGame("connect4", strings.Split("dcdcdcD", ""), newBoardDefs())
	if r.Err != "" || len(r.Steps) != 8 || strings.Join(r.Moves, "") != "dcdcdcd" || !r.Gomoku {
		t.Fatalf("replay: err %q, %d steps, moves %q", r.Err, len(r.Steps), r.Moves)
	}
	final := string(r.Board)
	if n, m := strings.Count(final, `href="#cr"`), strings.Count(final, `href="#cy"`); n != 4 || m != 3 {
		t.Errorf("board: %d red and %d yellow discs, want 4 and 3", n, m)
	}
	if bad := replayGame("connect4", []string{"d", "h"}, newBoardDefs()); bad.Err == "" || len(bad.Steps) != 2 {
		t.Errorf("a column h replayed: %q, %d steps", bad.Err, len(bad.Steps))
	}
}

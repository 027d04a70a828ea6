package site

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"vesper/analysis"
	"vesper/internal/browser"
	"vesper/internal/testkit"
	"vesper/match"
)

// connect4Input is a site's input with one finished Connect Four game
// between Alice and Bob, graded by the solver, and its analysis.
func connect4Input(t *testing.T) (Input, *match.State, *analysis.Game, []string) {
	t.Helper()
	// Red builds d-e-f; Yellow's a ignores the two ends, Red's c wins.
	// Yellow's e at ply 4 was already a loss or worse: the solver says.
	moves := []string{"d", "d", "e", "e", "f", "a", "c"}
	m := testkit.NewMatch(alice, bob, "connect4", "", t0)
	m.Accept(t0 + 60)
	last := m.Play(moves, t0+120, 60)
	s := foldT(t, m)
	m.Result(alice, result(s, "first", "four_in_a_row"), last+10)
	m.Result(bob, result(s, "first", "four_in_a_row"), last+20)
	s = foldT(t, m)
	if !s.Final || s.Result != match.First {
		t.Fatalf("fold: final %v result %v, ignored %v", s.Final, s.Result, s.Ignored)
	}
	g, err := analysis.Analyse(context.Background(), s, analysis.Options{SolverNodes: 5000})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int64{}
	for _, ev := range m.Events {
		seen[ev.ID] = int64(ev.CreatedAt) + 2
	}
	in := Input{
		States: []*match.State{s}, SeenAt: seen, Now: now, Daemon: daemon.PublicKey(),
		Profiles: map[string]Profile{
			alice.PublicKey(): ParseProfile(`{"name":"Alice","bot":true}`),
			bob.PublicKey():   ParseProfile(`{"name":"Bob the Bot","bot":true}`),
		},
		RatingGames: RatingGames([]*match.State{s}),
		Analyses:    map[string]*analysis.Game{s.Match: g},
	}
	return in, s, g, moves
}

// A finished Connect Four game, graded by the solver (issue 40): its page
// shows the board first and a replay without scripts, the solver's grades
// per player, and the game is rated in its own pool, listed on its own
// ratings page, in the menu and on the ladder, apart from chess.
func TestConnect4Site(t *testing.T) {
	in, s, g, moves := connect4Input(t)
	out, _ := buildFixture(t, in)
	read := func(rel string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	page := read("m/" + s.Match + ".html")
	// Board first: the first board of the page comes before the moves'
	// list and the analysis, and every position is a section reached by
	// a link, no script.
	board := strings.Index(page, `<use href="#cb"/>`)
	if board < 0 || board > strings.Index(page, `id="analysis"`) || strings.Contains(page, "<script") {
		t.Errorf("board at %d, analysis at %d, script %v", board, strings.Index(page, `id="analysis"`), strings.Contains(page, "<script"))
	}
	for ply := range len(moves) + 1 {
		if !strings.Contains(page, `id="ply-`+itoa(ply)+`"`) {
			t.Errorf("no replay step for ply %d", ply)
		}
	}
	// The solver's grades, per player (Red's four moves, Yellow's three):
	// the share of perfect ones, blunders and unknowns.
	for _, want := range []string{
		"Connect Four moves are graded by an exact solver",
		"vesper connect4 solver", "5000 nodes per position",
		`<th scope="col" class="n">Red</th><th scope="col" class="n">Yellow</th>`,
		`<tr><th scope="row">Perfect moves</th>`, "<tr><th scope=\"row\">Blunders</th>", "<tr><th scope=\"row\">Not graded</th>",
		"a win before it with perfect play", "a loss before it with perfect play",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("match page lacks %q", want)
		}
	}
	best := [2]int{g.Players[0].Counts[analysis.TagBest], g.Players[1].Counts[analysis.TagBest]}
	row := regexp.MustCompile(`<tr><th scope="row">Perfect moves</th><td class="n">(\d+) \((\d+)%\)</td><td class="n">(\d+) \((\d+)%\)</td></tr>`).FindStringSubmatch(page)
	if row == nil || row[1] != itoa(best[0]) || row[3] != itoa(best[1]) ||
		row[2]+"%" != percent(best[0], 4) || row[4]+"%" != percent(best[1], 3) {
		t.Errorf("perfect moves row %q, want %v of 4 and 3", row, best)
	}
	// Its own rating: on ratings/connect4.html, not on the chess page;
	// the menu links it; the ladder names the pool.
	c4 := read("ratings/connect4.html")
	if !strings.Contains(c4, "Alice") || !strings.Contains(c4, "Bob the Bot") {
		t.Error("ratings/connect4.html does not list the players")
	}
	if chess := read("ratings/chess.html"); strings.Contains(chess, "Bob the Bot") {
		t.Error("a Connect Four game rated as chess")
	}
	if !strings.Contains(read("index.html"), `<a href="ratings/connect4.html">Connect Four ratings</a>`) {
		t.Error("the menu has no Connect Four ratings")
	}
	if ladder := read("models.html"); !strings.Contains(ladder, "Connect Four") {
		t.Error("the ladder names no Connect Four rating")
	}
	// Alice's page: her Connect Four moves, the share of perfect ones.
	want := "<strong>Connect Four</strong>: 1 analysed game, 4 moves · <strong>" + percent(best[0], 4) + "</strong> perfect"
	if p := read("p/" + alice.PublicKey() + ".html"); !strings.Contains(p, want) {
		t.Errorf("the player page lacks %q", want)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// The Connect Four page in headless Chromium, at both screen sizes: the
// board's top is within the first screen, no replay link is under 24 px,
// no word is broken.
func TestBrowserConnect4BoardFirst(t *testing.T) {
	bin := browser.Chromium(t)
	in, s, _, _ := connect4Input(t)
	out, _ := buildFixture(t, in)
	srv := httptest.NewServer(staticFiles(out))
	defer srv.Close()
	br := browser.Start(t, bin)
	for _, sc := range browser.Screens {
		browser.CheckGamePage(t, br, srv.URL+"/m/"+s.Match+".html", "connect4 page", sc)
	}
}

// gradeWords is optional per game (a game without an entry says "best
// was"), but names only games, and Connect Four's grades are the solver's.
func TestGradeWords(t *testing.T) {
	for kind := range gradeWords {
		if _, err := match.LookupGame(kind); err != nil {
			t.Errorf("grade words for %v", err)
		}
	}
	if !gradeWords["connect4"].solved || gradeWords["chess"].solved || gradeWords["gomoku"].solved {
		t.Error("only Connect Four is graded by a solver")
	}
	m := analysis.Move{Ply: 1, Move: "a", Best: "d", Tag: analysis.TagBlunder}
	if got := stepGrade(&m, "go"); !strings.Contains(got, "best was d") {
		t.Errorf("a kind without words: %s", got)
	}
}

package site

import (
	"strings"
	"testing"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/ratings"
	"vesper/site/opening"
)

// testOpenings is an opening table in site/opening's derived form, written
// here so that pages do not depend on the shipped table.
func testOpenings(t testing.TB) *opening.Table {
	t.Helper()
	var b strings.Builder
	b.WriteString(opening.Header + "\n")
	for _, l := range [][3]string{
		{"A00", "Barnes Opening", "1. f3"},
		{"B20", "Sicilian Defense", "1. e4 c5"},
		{"C20", "King's Pawn Game", "1. e4 e5"},
		{"C40", "King's Knight Opening", "1. e4 e5 2. Nf3"},
	} {
		epd, _, err := opening.Replay(l[2])
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(l[0] + "\t" + l[1] + "\t" + l[2] + "\t" + epd + "\n")
	}
	tb, err := opening.Parse(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// TestGamePageTop: the page opens on the players with their ratings, the
// result and the opening, then the board; the ids, the nevent, the full
// npubs and the files are in a details block after the game.
func TestGamePageTop(t *testing.T) {
	f := newFixture(t)
	out, _ := buildFixture(t, f.in)
	page := readPage(t, out, "m/"+f.ids["mate"]+".html")
	board := strings.Index(page, `<section class="game" id="replay"`)
	details := strings.Index(page, `<details class="meta" id="details">`)
	if board < 0 || details < board {
		t.Fatalf("board at %d, details at %d: want the board, then the details", board, details)
	}
	top := page[:board]
	for _, want := range []string{
		`<table class="players">`, `1500 <span class="mute">→</span> 1741`, `<strong class="big">0-1</strong>`,
		`Black won by checkmate after 2 moves`, `<p class="opening">Opening: <strong>A00</strong> Barnes Opening</p>`,
	} {
		if !strings.Contains(top, want) {
			t.Errorf("the top of the page lacks %s", want)
		}
	}
	for _, bad := range []string{alice.PublicKey(), f.ids["mate"], "nevent1", "npub1" + strings.Repeat("x", 0) + f.in.Profiles[alice.PublicKey()].Name} {
		if strings.Contains(top, ">"+bad) {
			t.Errorf("the top of the page shows %.20s…", bad)
		}
	}
	if strings.Contains(top, `<code class="id">`) || strings.Contains(top, `class="id copy"`) {
		t.Error("a full id or the nevent is above the board")
	}
	for _, want := range []string{`<code class="id copy">nevent1`, `download="` + f.ids["mate"] + `.pgn"`, `download="` + f.ids["mate"] + `.json"`} {
		if !strings.Contains(page[details:], want) {
			t.Errorf("the details lack %s", want)
		}
	}
	if n := strings.Count(page, "<nav"); n != 1 {
		t.Errorf("%d <nav> landmarks, want the site's one", n)
	}
	if !strings.Contains(page, `<a href="`+f.ids["mate"]+`.pgn" download="`+f.ids["mate"]+`.pgn">Download the PGN</a>`) {
		t.Error("the PGN link has no download attribute")
	}
	pgn := readPage(t, out, "m/"+f.ids["mate"]+".pgn")
	if !strings.Contains(pgn, "[ECO \"A00\"]\n[Opening \"Barnes Opening\"]\n") {
		t.Errorf("the PGN lacks the opening tags:\n%s", pgn)
	}
	if active := readPage(t, out, "m/"+f.ids["active"]+".html"); !strings.Contains(active, "Opening: <strong>C40</strong> King&#39;s Knight Opening") {
		t.Error("the active game does not name its opening by its latest known position")
	}
	if five := readPage(t, out, "m/"+f.ids["five"]+".html"); strings.Contains(five, `class="opening"`) {
		t.Error("a gomoku game names a chess opening")
	}
}

// TestMoveTimes: each counted move's time from the previous one, the
// accept's for the first; a move stamped earlier than the one before took
// 0 s.
func TestMoveTimes(t *testing.T) {
	m := testkit.NewMatch(alice, bob, "chess", "", t0)
	m.Accept(t0 + 60)
	m.Move(alice, 1, "e2e4", t0+65)
	m.Move(bob, 2, "e7e5", t0+65+3725)
	m.Move(alice, 3, "g1f3", t0+65+3725+80000)
	s := foldT(t, m)
	got := moveTimes(s)
	want := []int64{5, 3725, 80000}
	if len(got) != len(want) {
		t.Fatalf("moveTimes = %v, want %v", got, want)
	}
	var words []string
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("ply %d took %d s, want %d", i+1, got[i], want[i])
		}
		words = append(words, spent(got[i]))
	}
	if s := strings.Join(words, ", "); s != "5s, 1h 2m, 22h 13m" {
		t.Errorf("spent: %s", s)
	}
	for sec, want := range map[int64]string{0: "0s", 60: "1m", 125: "2m 5s", 7200: "2h", 90061: "1d 1h", 86400: "1d"} {
		if got := spent(sec); got != want {
			t.Errorf("spent(%d) = %s, want %s", sec, got, want)
		}
	}
	if moveTimes(foldT(t, testkit.NewMatch(alice, bob, "chess", "", t0))) != nil {
		t.Error("times for a game not accepted")
	}
}

// TestCrosstable: the two players' score over their final games of the
// page's kind, each game a link, and the head-to-head page linked.
func TestCrosstable(t *testing.T) {
	if got := []string{halves(0), halves(1), halves(2), halves(5)}; strings.Join(got, " ") != "0 ½ 1 2½" {
		t.Errorf("halves: %v", got)
	}
	f := newFixture(t)
	// Two more final games between Alice and Bob: a draw and a win of
	// Alice's with Black.
	for i, r := range []string{match.Draw, match.Second} {
		first, second := alice, bob
		if i == 1 {
			first, second = bob, alice
		}
		m := testkit.NewMatch(first, second, "chess", "", t0+20000+int64(i)*1000)
		m.Accept(t0 + 20010 + int64(i)*1000)
		last := m.Play([]string{"e2e4", "e7e5"}, t0+20020+int64(i)*1000, 10)
		s := foldT(t, m)
		m.Result(first, result(s, r, "agreement"), last+5)
		m.Result(second, result(s, r, "agreement"), last+6)
		f.in.States = append(f.in.States, foldT(t, m))
	}
	f.in.RatingGames = RatingGames(f.in.States)
	out, _ := buildFixture(t, f.in)
	page := readPage(t, out, "m/"+f.ids["mate"]+".html")
	i := strings.Index(page, `<h2 id="crosstable">`)
	if i < 0 {
		t.Fatal("no crosstable")
	}
	xt, _, _ := strings.Cut(page[i:], "</p>")
	for _, want := range []string{
		// Alice (White here) lost the mate, drew, and won: 1½ each.
		`<td class="n"><strong>1½</strong></td><td class="r"><a href="` + f.ids["mate"] + `.html" title="`,
		`"><strong>0</strong></a></td><td class="r">`, `>½</a>`,
		"Their 3 final chess games against each other, oldest first; this one in bold.",
		`<a href="../` + h2hPath(alice.PublicKey(), bob.PublicKey()) + `">Every game between these two players</a>`,
	} {
		if !strings.Contains(xt, want) {
			t.Errorf("the crosstable lacks %s:\n%s", want, xt)
		}
	}
	// Carol and the house have a chess game (the ruling) but the page of
	// a gomoku game between Alice and Carol counts only gomoku.
	if tm := readPage(t, out, "m/"+f.ids["timeout"]+".html"); !strings.Contains(tm, "Their 1 final gomoku game against each other") {
		t.Error("the timeout page's crosstable does not count the one gomoku game")
	}
	if open := readPage(t, out, "m/"+f.ids["open"]+".html"); strings.Contains(open, `id="crosstable"`) {
		t.Error("a challenge nobody accepted has a crosstable")
	}
	b := &builder{cross: crossIndex(map[string][]ratings.Game{"chess": {{Match: "x", First: "a", Second: "b", Result: match.First}}})}
	if b.crosstable("chess", "x", "a", "a") != nil {
		t.Error("a crosstable of a player with itself")
	}
}

// TestHouseGameSaysWhatItIs: a game the house plays says how it came to
// play it and at what strength.
func TestHouseGameSaysWhatItIs(t *testing.T) {
	f := newFixture(t)
	m := testkit.NewMatch(carol, daemon, "chess", daemon.PublicKey(), t0+30000)
	m.Accept(t0 + 30030)
	f.in.States = append(f.in.States, foldT(t, m))
	out, _ := buildFixture(t, f.in)
	for _, c := range []struct{ name, id, want string }{
		{"open challenge", f.ids["ruling"], "Nobody accepted this open challenge within 30 minutes, so this site's house accepted it, 30m after it was posted. The house plays with its built-in engine at 2s of search per move."},
		{"invitation", m.ID, "This site's house accepted "},
	} {
		page := readPage(t, out, "m/"+c.id+".html")
		if !strings.Contains(page, c.want) || !strings.Contains(page, "built-in engine at 2s of search per move") {
			t.Errorf("%s: the page lacks %q", c.name, c.want)
		}
	}
	if page := readPage(t, out, "m/"+f.ids["mate"]+".html"); strings.Contains(page, `id="house"`) {
		t.Error("a game without the house says the house plays it")
	}
}

// TestExporterNamesTheOpening: the Exporter's PGN (vesper pgn, the NIP-64
// record) carries the same ECO and Opening tags as the build's, from the
// same table.
func TestExporterNamesTheOpening(t *testing.T) {
	f := newFixture(t)
	out, _ := buildFixture(t, f.in)
	e, err := NewExporter(f.in)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"mate", "ruling", "active"} {
		got, err := e.PGN(foldT(t, f.games[name]))
		if err != nil {
			t.Fatal(err)
		}
		if want := readPage(t, out, "m/"+f.ids[name]+".pgn"); got != want || !strings.Contains(got, "[ECO \"") {
			t.Errorf("%s: the Exporter's PGN is not the build's, or names no opening:\n%s\n%s", name, got, want)
		}
	}
}

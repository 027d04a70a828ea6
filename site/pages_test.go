package site

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/match/gomoku"
	"vesper/nostr"
	"vesper/ratings"
)

func readPage(t *testing.T, out, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestNoClassSharedWithSVGText is issue 17 item 1: the no-wrap class .nw
// was also the gomoku stone-number class, whose rule set a font of 0.36 px
// in SVG units, so every match page's created/seen times were invisible.
// A class that styles SVG text must never style page text.
func TestNoClassSharedWithSVGText(t *testing.T) {
	f := newFixture(t)
	out, _ := buildFixture(t, f.in)
	svgText := regexp.MustCompile(`<text class="([a-z-]+)"`)
	htmlClass := regexp.MustCompile(`<(?:td|th|span|p|div|code|a|li|strong|bdi|section|nav|h[1-3]|table|tr)\b[^>]*\bclass="([^"]+)"`)
	svg, page := map[string]bool{}, map[string]bool{}
	for _, rel := range []string{"index.html", "m/" + f.ids["five"] + ".html", "m/" + f.ids["mate"] + ".html", "p/" + alice.PublicKey() + ".html"} {
		html := readPage(t, out, rel)
		for _, m := range svgText.FindAllStringSubmatch(html, -1) {
			svg[m[1]] = true
		}
		for _, m := range htmlClass.FindAllStringSubmatch(html, -1) {
			for _, c := range strings.Fields(m[1]) {
				page[c] = true
			}
		}
	}
	if len(svg) < 3 || !page["nw"] {
		t.Fatalf("found SVG text classes %v and page classes %v: the fixture no longer shows both", svg, page)
	}
	for c := range svg {
		if page[c] {
			t.Errorf("class %q styles both SVG text and page text", c)
		}
	}
}

// TestWhoShowsKeyAndHouse is issue 17 item 4: a name may imitate the house
// or a key, so every name is followed by the account's short npub outside
// its link, only the house's key carries the house mark, and imitating
// names are flagged.
func TestWhoShowsKeyAndHouse(t *testing.T) {
	f := newFixture(t)
	house := f.in.Daemon
	houseShort := shortNpub(nostr.Npub(house))
	fakeHouse, fakeKey, fakeHex := testkit.Key("fake-house"), testkit.Key("fake-key"), testkit.Key("fake-hex")
	f.in.Profiles[house] = Profile{Name: "vesper house", Bot: true}
	f.in.Profiles[fakeHouse.PublicKey()] = Profile{Name: "Vesper  House", Bot: true}
	f.in.Profiles[fakeKey.PublicKey()] = Profile{Name: houseShort, Bot: true}
	f.in.Profiles[fakeHex.PublicKey()] = Profile{Name: house[:16], Bot: true}
	var states []*match.State
	for i, k := range []nostr.SecretKey{fakeHouse, fakeKey, fakeHex} {
		states = append(states, foldT(t, testkit.NewMatch(k, alice, "chess", "", now-300-int64(i))))
	}
	f.in.States = append(f.in.States, states...)
	out, _ := buildFixture(t, f.in)
	index := readPage(t, out, "index.html")
	cases := []struct {
		pk, name, warn string
		house          bool
	}{
		{house, "vesper house", "", true},
		{fakeHouse.PublicKey(), "Vesper  House", warnHouse, false},
		{fakeKey.PublicKey(), houseShort, warnKey, false},
		{fakeHex.PublicKey(), house[:16], warnKey, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var found []string
			for _, w := range whoSpans(index) {
				if strings.Contains(w, "p/"+c.pk+".html") {
					found = append(found, w)
				}
			}
			if len(found) == 0 {
				t.Fatalf("%s never appears on the index", c.name)
			}
			own := `<code class="npub">` + shortNpub(nostr.Npub(c.pk)) + `</code>`
			for _, w := range found {
				if !strings.Contains(w, `</a> `+own) {
					t.Errorf("no short npub after the link: %s", w)
				}
				if got := strings.Contains(w, `class="tag house"`); got != c.house {
					t.Errorf("house mark %v, want %v: %s", got, c.house, w)
				}
				if c.warn != "" && !strings.Contains(w, `<span class="tag warn">`+c.warn+`</span>`) {
					t.Errorf("no %q flag: %s", c.warn, w)
				}
				if c.warn == "" && strings.Contains(w, "tag warn") {
					t.Errorf("flagged: %s", w)
				}
			}
		})
	}
	page := readPage(t, out, "p/"+fakeHouse.PublicKey()+".html")
	if strings.Contains(page, `class="tag house"`) || !strings.Contains(page, "resembles this site's house, but it is another key") {
		t.Error("the impostor's own page does not say it is not the house")
	}
}

// TestIndexSaysWhatIsNotListed is issue 17 items 6 and 7: with the default
// bots-only listing the index says how many matches and accounts are left
// out and how to get listed, and a game whose clock ran out is not "live"
// but waits in its own group with the time it ran out.
func TestIndexSaysWhatIsNotListed(t *testing.T) {
	f := newFixture(t)
	// Nobody declares a bot: only the house is listed.
	for pk, p := range f.in.Profiles {
		if pk != f.in.Daemon {
			p.Bot = false
			f.in.Profiles[pk] = p
		}
	}
	out, _ := buildFixture(t, f.in)
	index := readPage(t, out, "index.html")
	for _, want := range []string{
		"8 matches are not listed here because 3 accounts playing in them have not declared themselves bots.",
		"The 4 finished ones are in the archive of unlisted matches",
		`<code>vesper profile</code>`, `href="how-to-play.html#listed"`,
	} {
		if !strings.Contains(index, want) {
			t.Errorf("index lacks %q", want)
		}
	}

	f = newFixture(t)
	out, _ = buildFixture(t, f.in)
	index = readPage(t, out, "index.html")
	live, stale, ok := strings.Cut(index, `<h2 id="clock-out">Clock ran out: waiting for a timeout claim or a ruling</h2>`)
	if !ok {
		t.Fatal("no group for games whose clock ran out")
	}
	stale, _, _ = strings.Cut(stale, `<h2 id="open">`)
	id := f.ids["active"]
	if strings.Contains(live, "m/"+id+".html") {
		t.Error("the game whose clock ran out two days ago is listed as live")
	}
	s := foldT(t, f.games["active"])
	if !strings.Contains(stale, "m/"+id+".html") || !strings.Contains(stale, date(s.ClockStart()+match.MoveClock)) {
		t.Errorf("the group lacks the game or the time its clock ran out (%s):\n%s", date(s.ClockStart()+match.MoveClock), stale)
	}
}

// TestLeaderboard: ranked players (RD below the threshold, enough games)
// come first and are numbered, provisional ones after them in their own
// section even when rated higher; ratings read "1899?" with the interval
// in its own column.
func TestLeaderboard(t *testing.T) {
	f := newFixture(t)
	est1, est2, fewGames, wide := testkit.Key("est1"), testkit.Key("est2"), testkit.Key("few"), testkit.Key("wide")
	for _, k := range []nostr.SecretKey{est1, est2, fewGames, wide} {
		f.in.Profiles[k.PublicKey()] = Profile{Name: "p-" + k.PublicKey()[:6], Bot: true}
	}
	f.in.Ratings = map[string][]ratings.Player{"chess": {
		{Pubkey: wide.PublicKey(), Rating: 2400, RD: 300, Games: 40, LastGame: now},
		{Pubkey: fewGames.PublicKey(), Rating: 2100, RD: 60, Games: minRankedGames - 1, LastGame: now},
		{Pubkey: est1.PublicKey(), Rating: 1899.4, RD: 45, Games: 30, LastGame: now},
		{Pubkey: est2.PublicKey(), Rating: 1700, RD: 50, Games: minRankedGames, LastGame: now},
	}}
	out, _ := buildFixture(t, f.in)
	page := readPage(t, out, "ratings/chess.html")
	ranked, prov, ok := strings.Cut(page, `<h2 id="provisional">`)
	if !ok {
		t.Fatal("no provisional section")
	}
	pos := func(s string, k nostr.SecretKey) int { return strings.Index(s, "p/"+k.PublicKey()+".html") }
	if a, b := pos(ranked, est1), pos(ranked, est2); a < 0 || b < 0 || a > b {
		t.Errorf("ranked section: est1 at %d, est2 at %d; want both, est1 first", a, b)
	}
	for _, k := range []nostr.SecretKey{fewGames, wide} {
		if pos(ranked, k) >= 0 || pos(prov, k) < 0 {
			t.Errorf("%s should be provisional only", k.PublicKey()[:8])
		}
	}
	for _, want := range []string{`<td class="n"><strong>1899</strong></td><td class="n mute">± 90</td>`, `<strong>2100?</strong>`, `<strong>2400?</strong>`} {
		if !strings.Contains(page, want) {
			t.Errorf("ratings page lacks %s", want)
		}
	}
	if !regexp.MustCompile(`<td class="n">1</td><td><span class="who"><a href="../p/` + est1.PublicKey()).MatchString(page) {
		t.Error("est1 is not rank 1")
	}
}

// TestGamePage: ratings before and after beside the names, the PGN's Elo
// and Termination tags, the move list's highlight rule, and gomoku's
// per-move numbers with the winning five struck through.
func TestGamePage(t *testing.T) {
	f := newFixture(t)
	out, _ := buildFixture(t, f.in)
	mate := readPage(t, out, "m/"+f.ids["mate"]+".html")
	for _, want := range []string{
		`<span class="nw">1500 <span class="mute">→</span> 1741 <strong>&#43;241</strong></span>`,
		`<span class="nw">1500 <span class="mute">→</span> 1259 <strong>-241</strong></span>`,
		`.game{--k:4;--p:48;--q:116}:has(#ply-0:target){--k:0;--m:0}:has(#ply-1:target){--k:1;--p:86;--q:85}`,
		`<a class="t1" href="#ply-1">f3<abbr class="gm g-inaccuracy" title="inaccuracy">?!</abbr></a>`,
	} {
		if !strings.Contains(mate, want) {
			t.Errorf("mate page lacks %s", want)
		}
	}
	pgn := readPage(t, out, "m/"+f.ids["mate"]+".pgn")
	for _, want := range []string{`[WhiteElo "1500"]`, `[BlackElo "1500"]`, `[WhiteRatingDiff "-241"]`, `[Termination "normal"]`} {
		if !strings.Contains(pgn, want) {
			t.Errorf("PGN lacks %s:\n%s", want, pgn)
		}
	}
	active := readPage(t, out, "m/"+f.ids["active"]+".pgn")
	for _, want := range []string{`[WhiteElo "-"]`, `[Termination "unterminated"]`} {
		if !strings.Contains(active, want) {
			t.Errorf("unrated PGN lacks %s", want)
		}
	}
	five := readPage(t, out, "m/"+f.ids["five"]+".html")
	for _, want := range []string{
		`<span class="mc"><span class="mn">8.</span><a class="t8" href="#ply-8">a4</a><small>30s</small></span> <span class="mc"><span class="mn">9.</span><a class="t9" href="#ply-9">l8<abbr class="gm g-best" title="best move">★</abbr></a><small>30s</small></span>`,
		`After 9. l8`, `<path class="win" d="M8 8L12 8"/>`,
	} {
		if !strings.Contains(five, want) {
			t.Errorf("gomoku page lacks %s", want)
		}
	}
}

func TestWinLine(t *testing.T) {
	pts := func(moves ...string) []gomoku.Point {
		var out []gomoku.Point
		for _, m := range moves {
			p, err := gomoku.ParsePoint(m)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, p)
		}
		return out
	}
	cases := []struct {
		name  string
		moves []string
		ok    bool
		from  string
		to    string
	}{
		{"row, last in the middle", []string{"a1", "o15", "b1", "o14", "d1", "o13", "e1", "o12", "c1"}, true, "a1", "e1"},
		{"diagonal down", []string{"a5", "o1", "b4", "o2", "c3", "o3", "d2", "o4", "e1"}, true, "a5", "e1"},
		{"six in a row", []string{"a1", "o15", "b1", "o14", "c1", "o13", "e1", "o12", "f1", "o10", "d1"}, true, "a1", "f1"},
		{"four only", []string{"a1", "o15", "b1", "o14", "c1", "o13", "d1"}, false, "", ""},
		{"no stones", nil, false, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, z, ok := winLine(pts(c.moves...))
			if ok != c.ok || (ok && (a.String() != c.from || z.String() != c.to)) {
				t.Errorf("got %v %v %v, want %v %s %s", a, z, ok, c.ok, c.from, c.to)
			}
		})
	}
}

// TestArchiveReachesEveryMatch: every finished match is reachable from
// index.html by links (issue 17), through archive pages of archiveRows,
// newest first, listed and unlisted.
func TestArchiveReachesEveryMatch(t *testing.T) {
	f := newFixture(t)
	for i := range archiveRows*2 + 40 {
		a, b := alice, bob
		if i%7 == 0 {
			a = carol // not a bot: these go to the unlisted archive
		}
		m := testkit.NewMatch(a, b, "chess", "", t0-100000+int64(i)*100)
		m.Accept(m.T + 5)
		last := m.Play([]string{"f2f3", "e7e5", "g2g4", "d8h4"}, m.T+10, 5)
		s := foldT(t, m)
		m.Result(a, result(s, "second", "checkmate"), last+1)
		m.Result(b, result(s, "second", "checkmate"), last+2)
		f.in.States = append(f.in.States, foldT(t, m))
	}
	f.in.RatingGames = RatingGames(f.in.States)
	out, _ := buildFixture(t, f.in)
	reached := crawl(t, out, "index.html")
	finished := 0
	for _, s := range f.in.States {
		if s.Over {
			finished++
			if !reached["m/"+s.Match+".html"] {
				t.Errorf("finished match %s is not reachable from index.html", s.Match)
			}
		}
	}
	if finished < archiveRows*2 {
		t.Fatalf("only %d finished matches", finished)
	}
	if !reached["archive/chess-3.html"] || !reached["archive/chess-1.html"] {
		t.Errorf("archive pages not all reached: %v", keysWith(reached, "archive/"))
	}
	newest := readPage(t, out, "archive/chess-3.html")
	if !strings.Contains(newest, `href="chess-2.html">older ›</a>`) || strings.Contains(newest, "newer") {
		t.Error("the newest page does not link the older one")
	}
}

// crawl follows every internal link from start and returns the pages
// reached.
func crawl(t *testing.T, out, start string) map[string]bool {
	t.Helper()
	href := regexp.MustCompile(`href="([^"#:]+)(?:#[^"]*)?"`)
	seen := map[string]bool{start: true}
	queue := []string{start}
	for len(queue) > 0 {
		rel := queue[0]
		queue = queue[1:]
		if !strings.HasSuffix(rel, ".html") {
			continue
		}
		for _, m := range href.FindAllStringSubmatch(readPage(t, out, rel), -1) {
			target := path.Join(path.Dir(rel), m[1])
			if !seen[target] {
				seen[target] = true
				queue = append(queue, target)
			}
		}
	}
	return seen
}

func keysWith(m map[string]bool, prefix string) []string {
	var out []string
	for k := range m {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	return out
}

// whoSpans cuts every <span class="who">…</span> out of a page, nested
// spans included.
func whoSpans(page string) []string {
	var out []string
	for {
		i := strings.Index(page, `<span class="who">`)
		if i < 0 {
			return out
		}
		page = page[i:]
		depth, j := 0, 0
		for j < len(page) {
			switch {
			case strings.HasPrefix(page[j:], "<span"):
				depth++
			case strings.HasPrefix(page[j:], "</span>"):
				depth--
				if depth == 0 {
					j += len("</span>")
					out = append(out, page[:j])
					page = page[j:]
					j = -1
				}
			}
			if j < 0 {
				break
			}
			j++
		}
		if j >= len(page) {
			return out
		}
	}
}

// TestReadableReasons: an ignored event's reason reads as what happened,
// with dates, and what to do, not as the fold's formula; the token stays
// beside it.
func TestReadableReasons(t *testing.T) {
	seen := map[string]int64{}
	held := testkit.NewMatch(alice, bob, "chess", "", t0)
	ev := held.Move(alice, 1, "e2e4", t0+10)
	seen[ev.ID] = t0 + 11

	m := testkit.NewMatch(alice, bob, "chess", "", t0+100)
	m.Accept(t0 + 200)
	future := m.Move(alice, 1, "e2e4", t0+1000)
	seen[future.ID] = t0 + 1000 - 360 // stamped 6 minutes after it arrived
	m.Move(alice, 1, "d2d4", t0+1010)
	late := m.Move(bob, 2, "e7e5", t0+1010+match.MoveClock+60)
	for _, e := range m.Events {
		if _, ok := seen[e.ID]; !ok {
			seen[e.ID] = int64(e.CreatedAt)
		}
	}
	var states []*match.State
	for _, g := range []*testkit.Match{held, m} {
		s, err := match.Fold(g.ID, g.Events, seen)
		if err != nil {
			t.Fatal(err)
		}
		states = append(states, s)
	}
	out, _ := buildFixture(t, Input{States: states, SeenAt: seen, Now: now, Daemon: daemon.PublicKey()})
	cases := []struct {
		page, want string
	}{
		{held.ID, "Held: the challenger's first move, posted before anyone accepted. It is kept aside and counts as soon as a valid accept arrives"},
		{m.ID, "Stamped 6 min after this verifier first received it (stamped " + hdate(int64(future.CreatedAt)) + ", first seen " + hdate(t0+1000-360) + ")"},
		{m.ID, `<code class="mute">future_dated</code>`},
		{m.ID, "Stamped " + hdate(int64(late.CreatedAt)) + ", after its 24-hour clock had run out at " + hdate(t0+200+match.MoveClock) + ". A late move never counts"},
		{m.ID, `<code class="mute">late</code>`},
		// The events table's seen-after cell: 6 minutes before the stamp,
		// and at once.
		{m.ID, `<tr id="ev-` + future.ID[:shortLen] + `"><td>3</td><td>` + shortID(future.ID) + `</td><td>move<br>White</td><td>` + evDate(int64(future.CreatedAt)) + `</td><td>−6m</td>`},
		{m.ID, `<tr id="ev-` + late.ID[:shortLen] + `"><td>5</td><td>` + shortID(late.ID) + `</td><td>move<br>Black</td><td>` + evDate(int64(late.CreatedAt)) + `</td><td>0s</td>`},
	}
	for _, c := range cases {
		if page := readPage(t, out, "m/"+c.page+".html"); !strings.Contains(page, c.want) {
			t.Errorf("m/%s.html lacks %q", c.page[:8], c.want)
		}
	}
	page := readPage(t, out, "m/"+m.ID+".html")
	if strings.Contains(page, "created_at &gt; seen_at") || strings.Contains(page, "clock_start +") {
		t.Error("a reason still reads as a formula")
	}
}

// TestRulingByAnotherArbiter: how the result became final stays on the
// page, and a ruling signed by anyone but the house says who ruled and
// that anyone may rule correctly.
func TestRulingByAnotherArbiter(t *testing.T) {
	f := newFixture(t)
	judge := testkit.Key("judge")
	f.in.Profiles[judge.PublicKey()] = Profile{Name: "Judge Judy", Bot: true}
	m := testkit.NewMatch(alice, bob, "chess", "", t0+50000)
	m.Accept(t0 + 50010)
	last := m.Play([]string{"e2e4", "e7e5"}, t0+50020, 10)
	m.Move(bob, 3, "resign", last+10)
	s := foldT(t, m)
	m.Request(alice, last+10+match.MoveClock+1)
	m.Ruling(judge, result(s, "first", "resignation"), last+10+match.MoveClock+2)
	s = foldT(t, m)
	if !s.Final || s.FinalBy != match.FinalByRuling {
		t.Fatalf("fixture: final %v by %q", s.Final, s.FinalBy)
	}
	f.in.States = append(f.in.States, s)
	out, _ := buildFixture(t, f.in)
	page := readPage(t, out, "m/"+m.ID+".html")
	final, _, _ := strings.Cut(page[strings.Index(page, `<div class="note" id="final">`):], "</div>")
	for _, want := range []string{
		"The result is <strong>final</strong> by an arbiter&#39;s ruling after an arbitration request",
		"arbitration request", "Judge Judy",
		"not by this site's house: anyone may rule, and a ruling counts only when it is correct",
	} {
		if !strings.Contains(final, want) {
			t.Errorf("the finality note lacks %q:\n%s", want, final)
		}
	}
	house := readPage(t, out, "m/"+f.ids["ruling"]+".html")
	if strings.Contains(house, "not by this site") {
		t.Error("the house's own ruling is described as another arbiter's")
	}
}

package site

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/ratings"
)

// history is a rating history of points (days before now, rating, RD),
// oldest first, on matches that do not exist (their outcome is unknown).
func history(points ...[3]float64) []ratings.Point {
	var h []ratings.Point
	for i, p := range points {
		h = append(h, ratings.Point{At: now - int64(p[0]*86400), Match: fmt.Sprintf("%064x", i+1), Rating: p[1], RD: p[2]})
	}
	return h
}

// TestLeaderboardActivityAndTrend (issue 26): an established player with
// no rated game in activeDays days is listed apart as inactive, unranked
// (also in ratings.json); the trend is the rating now minus the rating
// after the last game before the trendDays window, the starting rating
// when there was none; the index shows the top ten ranked players and
// counts the same groups as the ratings page.
func TestLeaderboardActivityAndTrend(t *testing.T) {
	f := newFixture(t)
	key := func(name string) string {
		pk := testkit.Key(name).PublicKey()
		f.in.Profiles[pk] = Profile{Name: name, Bot: true}
		return pk
	}
	idle, newcomer := key("idle"), key("newcomer")
	f.in.Ratings = map[string][]ratings.Player{"chess": activityTable(key, idle, newcomer)}
	out, _ := buildFixture(t, f.in)
	checkLeaderboardGroups(t, readPage(t, out, "ratings/chess.html"), key, idle, newcomer)
	checkRatingsJSONRanks(t, readPage(t, out, "ratings.json"), idle, key("r11"))

	index := readPage(t, out, "index.html")
	top, _, _ := strings.Cut(index[strings.Index(index, `<h2 id="ratings">`):], "</ol>")
	if n := strings.Count(top, "<li>"); n != 10 {
		t.Errorf("the index's chess top has %d players, want 10", n)
	}
	if !strings.Contains(top, "p/"+key("r09")+".html") || strings.Contains(top, "p/"+key("r10")+".html") || strings.Contains(top, "p/"+idle+".html") {
		t.Error("the index's top ten is not the ten best ranked players")
	}
	if want := "(14 listed: 12 ranked, 1 inactive, 1 provisional)"; !strings.Contains(index, want) {
		t.Errorf("the index does not count the leaderboard's groups as %q", want)
	}
	if !strings.Contains(index, "a rated game in the last 30 days") {
		t.Error("the index does not state the ranking's rules")
	}
}

// activityTable is twelve ranked players (r00 1900 down to r11 1790), an
// established one idle for longer than activeDays, and a provisional
// newcomer whose every game is within trendDays.
func activityTable(key func(string) string, idle, newcomer string) []ratings.Player {
	var table []ratings.Player
	for i := range 12 { // ranked, 1900 down to 1790
		r := 1900 - 10*float64(i)
		table = append(table, ratings.Player{Pubkey: key(fmt.Sprintf("r%02d", i)), Rating: r, RD: 60, Games: 20,
			LastGame: now - 86400, History: history([3]float64{20, r - 40, 70}, [3]float64{1, r, 60})})
	}
	return append(table,
		ratings.Player{Pubkey: idle, Rating: 2500, RD: 50, Games: 40, LastGame: now - (activeDays+1)*86400,
			History: history([3]float64{activeDays + 1, 2500, 50})},
		ratings.Player{Pubkey: newcomer, Rating: 1620, RD: 200, Games: 3, LastGame: now - 3600,
			History: history([3]float64{2, 1580, 250}, [3]float64{1.0 / 24, 1620, 200})})
}

func checkLeaderboardGroups(t *testing.T, page string, key func(string) string, idle, newcomer string) {
	t.Helper()
	ranked, rest, _ := strings.Cut(page, `<h2 id="inactive">`)
	inactive, prov, _ := strings.Cut(rest, `<h2 id="provisional">`)
	row := func(s, pk string) string {
		i := strings.Index(s, "p/"+pk+".html")
		if i < 0 {
			return ""
		}
		start := strings.LastIndex(s[:i], "<tr>")
		end := strings.Index(s[i:], "</tr>")
		return s[start : i+end]
	}
	if row(ranked, idle) != "" || row(inactive, idle) == "" || row(prov, idle) != "" {
		t.Errorf("the idle player is not listed apart as inactive:\n%s", row(page, idle))
	}
	if !strings.Contains(row(inactive, idle), `<td class="n"><span class="mute">–</span></td>`) {
		t.Errorf("the idle player has a rank: %s", row(inactive, idle))
	}
	r00 := row(ranked, key("r00"))
	if !strings.HasPrefix(r00, `<tr><td class="n">1</td>`) || !strings.Contains(r00, `<td class="n">&#43;40</td>`) {
		t.Errorf("r00: want rank 1 and trend +40 (1900 now, 1860 after its game 20 days ago): %s", r00)
	}
	if got := row(prov, newcomer); !strings.Contains(got, `<td class="n">&#43;120</td>`) {
		t.Errorf("newcomer: want trend +120 (1620 now, the starting 1500 before its first game 2 days ago): %s", got)
	}
	for _, rule := range []string{"a rated game in the last 30 days", "the rating change over the last 7 days", "listed apart below the ranking"} {
		if !strings.Contains(page, rule) {
			t.Errorf("the ratings page does not state %q", rule)
		}
	}
}

// checkRatingsJSONRanks: the inactive player has no rank in ratings.json
// and says so; the last ranked one keeps its rank.
func checkRatingsJSONRanks(t *testing.T, data, idle, last string) {
	t.Helper()
	var feed struct {
		Pools map[string][]struct {
			Pubkey   string `json:"pubkey"`
			Rank     int    `json:"rank"`
			Inactive bool   `json:"inactive"`
		} `json:"pools"`
	}
	if err := json.Unmarshal([]byte(data), &feed); err != nil {
		t.Fatal(err)
	}
	for _, p := range feed.Pools["chess"] {
		if p.Pubkey == idle && (p.Rank != 0 || !p.Inactive) {
			t.Errorf("ratings.json: idle has rank %d, inactive %v", p.Rank, p.Inactive)
		}
		if p.Pubkey == last && (p.Rank != 12 || p.Inactive) {
			t.Errorf("ratings.json: r11 has rank %d, inactive %v", p.Rank, p.Inactive)
		}
	}
}

// TestPlayerRatingFigures (issue 26): highest and lowest count only
// established ratings; the percentile places the rating among the other
// listed established players, a tie counting half, provisional and
// unlisted players left out; the rank is the leaderboard's.
func TestPlayerRatingFigures(t *testing.T) {
	f := newFixture(t)
	pk := func(name string, listed bool) string {
		k := testkit.Key(name).PublicKey()
		f.in.Profiles[k] = Profile{Name: name, Bot: listed}
		return k
	}
	me := pk("me", true)
	player := func(k string, r float64, rd float64) ratings.Player {
		return ratings.Player{Pubkey: k, Rating: r, RD: rd, Games: 10, LastGame: now - 3600, History: history([3]float64{1, r, rd})}
	}
	f.in.Ratings = map[string][]ratings.Player{"chess": {
		player(pk("above", true), 1700, 60),
		{Pubkey: me, Rating: 1600, RD: 60, Games: 10, LastGame: now - 3600, History: history(
			[3]float64{9, 1900, 300}, // provisional: neither highest nor lowest
			[3]float64{8, 1650, 100}, [3]float64{5, 1550, 80}, [3]float64{1, 1600, 60})},
		player(pk("tie", true), 1600, 60),
		player(pk("below", true), 1500, 60),
		player(pk("provisional", true), 1000, 300),
		player(pk("unlisted", false), 1000, 60),
	}}
	out, _ := buildFixture(t, f.in)
	page := readPage(t, out, "p/"+me+".html")
	for _, want := range []string{
		"Rank 2 · rated above <strong>50%</strong> of the 3 other established players", // (1 below + ½ tie) / 3
		`Highest <strong>1650</strong>`, `lowest <strong>1550</strong>`,
		"Highest and lowest count only the ratings after games that left this player established (RD below 110)",
		"a tie counts half",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the player page lacks %q", want)
		}
	}
}

// TestPlayerBestWinsAndStreaks (issue 26) checks the showcase's busiest
// player against figures computed here from the ratings package's table:
// the best win is the win over the highest rating an opponent had before
// the game, the worst loss the loss to the lowest, and the longest streaks
// are the longest runs of wins and losses in rated order.
func TestPlayerBestWinsAndStreaks(t *testing.T) {
	f := showcase(t)
	out, _ := buildFixture(t, f.in)
	me := f.games["opera"].A.PublicKey()
	best, worst, longest := expectedNotable(f, me)
	if best == nil || worst == nil || longest["won"] < 2 {
		t.Fatalf("the showcase player has too few results to test (best %v, worst %v, streaks %v)", best, worst, longest)
	}
	page := readPage(t, out, "p/"+me+".html")
	firstRow := func(id string) string {
		_, after, ok := strings.Cut(page, `id="chess-`+id+`"`)
		if !ok {
			t.Fatalf("no %s table", id)
		}
		_, row, _ := strings.Cut(after, "<tbody>\n")
		row, _, _ = strings.Cut(row, "</tr>")
		return row
	}
	for _, c := range []struct {
		table string
		g     *notable
	}{{"best-wins", best}, {"worst-losses", worst}} {
		row := firstRow(c.table)
		rating := strconv.Itoa(int(math.Round(c.g.opp)))
		if c.g.oppProv {
			rating += "?"
		}
		if !strings.Contains(row, "m/"+c.g.id+".html") || !strings.Contains(row, `<td class="n">`+rating+`</td>`) {
			t.Errorf("%s: first row should be match %s against %s:\n%s", c.table, c.g.id[:12], rating, row)
		}
	}
	want := fmt.Sprintf("longest winning streak <strong>%d</strong> · longest losing streak <strong>%d</strong>", longest["won"], longest["lost"])
	if !strings.Contains(page, want) {
		t.Errorf("the player page lacks %q", want)
	}
}

// notable is a game of TestPlayerBestWinsAndStreaks's expectations.
type notable struct {
	id      string
	opp     float64 // the opponent's rating before the game
	oppProv bool
}

// expectedNotable computes me's best win, worst loss and longest streaks
// in the showcase's chess games straight from ratings.Table.
func expectedNotable(f *fixture, me string) (best, worst *notable, longest map[string]int) {
	params := ratings.LichessParams()
	table := map[string]ratings.Player{}
	for _, p := range ratings.Table("chess", f.in.RatingGames["chess"], params) {
		table[p.Pubkey] = p
	}
	states := map[string]*match.State{}
	for _, s := range f.in.States {
		states[s.Match] = s
	}
	run := map[string]int{}
	longest = map[string]int{}
	for _, h := range table[me].History {
		s := states[h.Match]
		opp, won := s.First, s.Result == match.Second
		if opp == me {
			opp, won = s.Second, s.Result == match.First
		}
		o := "lost"
		switch {
		case s.Result == match.Draw:
			o = "draw"
		case won:
			o = "won"
		}
		for _, k := range []string{"won", "lost"} {
			if k == o {
				run[k]++
				longest[k] = max(longest[k], run[k])
			} else {
				run[k] = 0
			}
		}
		g := &notable{id: h.Match, opp: params.Rating, oppProv: true}
		for i, oh := range table[opp].History {
			if oh.Match == h.Match && i > 0 {
				g.opp, g.oppProv = table[opp].History[i-1].Rating, table[opp].History[i-1].RD >= ratings.ProvisionalRD
			}
		}
		// Later games win ties: the page lists the newest first among equals.
		if o == "won" && (best == nil || g.opp >= best.opp) {
			best = g
		}
		if o == "lost" && (worst == nil || g.opp <= worst.opp) {
			worst = g
		}
	}
	return best, worst, longest
}

// TestHowToAndProtocol (issue 26): the how-to page says how to install
// vesper and play with vesper play and vesper mcp, and links the protocol,
// published with the site as protocol.html and, byte for byte, protocol.md.
func TestHowToAndProtocol(t *testing.T) {
	f := newFixture(t)
	out, _ := buildFixture(t, f.in)
	howto := readPage(t, out, "how-to-play.html")
	for _, want := range []string{
		`href="protocol.html"`, `href="protocol.md"`, `<h2 id="install">`, "go build -o vesper ./cmd/vesper",
		"./vesper keygen --out agent.key", `<h2 id="play">`, "./vesper play --key agent.key --engine builtin",
		`<h2 id="mcp">`, `"args": ["mcp", "--key"`, "vesper://rules",
	} {
		if !strings.Contains(howto, want) {
			t.Errorf("how-to-play.html lacks %q", want)
		}
	}
	if got := readPage(t, out, "protocol.md"); got != protocolText || !strings.HasPrefix(got, "# Board games over Nostr") {
		t.Errorf("protocol.md is not the embedded PROTOCOL.md (%d bytes)", len(got))
	}
	page := readPage(t, out, "protocol.html")
	if !strings.Contains(page, "<pre># Board games over Nostr: the protocol this project verifies\n") ||
		!strings.Contains(page, "&#34;agentcommons-games&#34;") {
		t.Error("protocol.html does not show the protocol's text, escaped")
	}
	if strings.Count(page, "<script") > 0 {
		t.Error("protocol.html holds a script tag")
	}
}

// TestProtocolCopy: the embedded PROTOCOL.md is the project's contract,
// kept beside the repository in ../shared (README). Skipped where that
// file is not there (a fresh clone), unless VESPER_PROTOCOL names it.
func TestProtocolCopy(t *testing.T) {
	path := os.Getenv("VESPER_PROTOCOL")
	if path == "" {
		path = filepath.Join("..", "..", "shared", "PROTOCOL.md")
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("no contract to compare with: %v", err)
	}
	if string(want) != protocolText {
		t.Errorf("site/PROTOCOL.md differs from %s: copy it (cp %s site/PROTOCOL.md)", path, path)
	}
}

var descriptionRE = regexp.MustCompile(`<meta name="description" content="([^"]+)">`)

// TestPageRegions (issue 26): every page type opens its body with a skip
// link to main, has one header, one labelled site nav in it, one main with
// that id and one footer, and a meta description of its own.
func TestPageRegions(t *testing.T) {
	f := newFixture(t)
	out, _ := buildFixture(t, f.in)
	seen := map[string]string{}
	for _, rel := range []string{"index.html", "how-to-play.html", "protocol.html", "ratings/chess.html", "ratings/gomoku.html",
		"p/" + alice.PublicKey() + ".html", "m/" + f.ids["mate"] + ".html", "m/" + f.ids["five"] + ".html", "models.html", "archive/chess-1.html"} {
		page := readPage(t, out, rel)
		if !strings.Contains(page, "<body>\n<a class=\"skip\" href=\"#main\">Skip to main content</a>\n<header>") {
			t.Errorf("%s: the body does not open with the skip link", rel)
		}
		for tag, n := range map[string]int{"<header>": 1, `<nav aria-label="Site">`: 1, `<main id="main">`: 1, "<main": 1, "<footer>": 1} {
			if got := strings.Count(page, tag); got != n {
				t.Errorf("%s: %d × %s, want %d", rel, got, tag, n)
			}
		}
		m := descriptionRE.FindStringSubmatch(page)
		if m == nil || len(m[1]) < 40 {
			t.Errorf("%s: no meta description", rel)
			continue
		}
		if other, ok := seen[m[1]]; ok {
			t.Errorf("%s and %s share their description %q", rel, other, m[1])
		}
		seen[m[1]] = rel
	}
}

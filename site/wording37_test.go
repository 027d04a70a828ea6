package site

import (
	"strings"
	"testing"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
)

// The wording of issue 37, each read off a built page.
func TestWordingIssue37(t *testing.T) {
	g := newTalkGame(t, t0, false)
	g.reveal(alice, g.signed+5, "", 0, 2)
	g.reveal(bob, g.signed+6, "", 1, 3)
	// An open challenge nobody accepted, in the same site.
	open := testkit.NewMatch(alice, bob, nostr.GameChess, "", t0+500)
	s := foldT(t, g.m)
	in := Input{States: []*match.State{s, foldT(t, open)}, Now: g.end + 86400, Daemon: daemon.PublicKey(), ListAll: true,
		Profiles: map[string]Profile{
			alice.PublicKey(): ParseProfile(`{"name":"Alice","bot":true,"agent":{"model":"model-a"}}`),
			bob.PublicKey():   ParseProfile(`{"name":"Bob","bot":true,"agent":{"model":"model-b"}}`),
		}}
	in.RatingGames = RatingGames(in.States)
	out, _ := buildFixture(t, in)
	page := readSite(t, out, "m/"+g.m.ID+".html")
	openPage := readSite(t, out, "m/"+open.ID+".html")
	index := readSite(t, out, "index.html")
	models := readSite(t, out, "models.html")
	howto := readSite(t, out, "how-to-play.html")
	cases := []struct {
		what, page, want, not string
	}{
		{"attempts in words", page, "refused answers before this move: 2", "attempts: 2"},
		{"the plan check in words", page, "<span class=\"mute\">the reasoning</span> names the move played", "plan:</span>"},
		{"what verified proves", page, "the text was fixed when the move was signed; that is all it proves", ""},
		{"no unnamed arena", page, "The check is textual: it says whether the plan mentions the move", "as the arena does"},
		{"moves, not plies, in the status", page, "after 2 moves,", "plies,"},
		{"moves in the index's finished table", index, "checkmate, 2 moves", " plies<"},
		{"move times are the players' stamps", page, "as the players stamped it", ""},
		{"the opening's credit names the Lichess commit", page, "the Lichess opening table (lichess-org/chess-openings at commit 51b8862, CC0)", "vesper&#39;s opening table"},
		{"the opening names the move, not a ply", page, "gives the position after 2... Qh4#", "after ply"},
		{"no raw usage keys", page, "input tokens 1200", "cost usd"},
		{"no '?' as a player", openPage, "vs <span class=\"mute\">anyone (open challenge)</span></h1>", "<span class=\"mute\">?</span></h1>"},
		{"no 'pick a move' without moves", openPage, "<p class=\"mute\"></p>", "Pick a move"},
		{"the ladder states its order", models, "Models are ordered by rating.", "ordered by the low end"},
		{"how to enter a model", howto, `<h2 id="ladder">Enter a model in the ladder</h2>`, ""},
		{"the profile's agent", howto, "--model MODEL --provider PROVIDER --harness HARNESS --version VERSION", ""},
		{"the ladder's feed", howto, `<a href="models.json">models.json</a>`, ""},
		{"a model's moves carry its talk", howto, "Each move may then carry a comment, a committed reasoning revealed after the game, the refused answers before it (<code>attempts</code>), the tokens, cost and latency it took (<code>usage</code>)", ""},
	}
	for _, c := range cases {
		if !strings.Contains(c.page, c.want) {
			t.Errorf("%s: the page lacks %q", c.what, c.want)
		}
		if c.not != "" && strings.Contains(c.page, c.not) {
			t.Errorf("%s: the page still says %q", c.what, c.not)
		}
	}
}

// A timeout has one date everywhere: the index and the archive date it
// when the clock ran out, as its game page does, not by the claim.
func TestTimeoutOneDate(t *testing.T) {
	m := testkit.NewMatch(alice, bob, nostr.GameChess, "", t0)
	m.Accept(t0 + 10)
	m.Move(alice, 1, "e2e4", t0+20)
	s := foldT(t, m)
	m.Result(alice, result(s, "first", "timeout"), t0+20+match.MoveClock+3*3600) // claimed three hours late
	s = foldT(t, m)
	if !s.Final || s.Reason != match.ReasonTimeout {
		t.Fatalf("fixture: final %v, reason %q", s.Final, s.Reason)
	}
	in := Input{States: []*match.State{s}, Now: s.EndedAt + 3600, ListAll: true}
	in.RatingGames = RatingGames(in.States)
	out, _ := buildFixture(t, in)
	ranOut, claimed := hdate(s.Clock().MoveDeadline()), hdate(s.EndedAt)
	page := readSite(t, out, "m/"+m.ID+".html")
	if !strings.Contains(page, "clock ran out at "+ranOut) {
		t.Fatalf("the game page does not date the timeout %s", ranOut)
	}
	for _, rel := range []string{"index.html", "archive/chess-1.html"} {
		p := readSite(t, out, rel)
		i := strings.Index(p, "m/"+m.ID+".html")
		if i < 0 {
			t.Fatalf("%s does not list the game", rel)
		}
		row := p[i:]
		row = row[:strings.Index(row, "</tr>")]
		if !strings.Contains(row, ranOut) || strings.Contains(row, claimed) {
			t.Errorf("%s dates the timeout otherwise than its page (%s): %s", rel, ranOut, row)
		}
	}
}

// The how-to says where vesper's source is and which relays this site's
// daemon reads, as the build was told, and says so when it was not told;
// an operator's source URL that is no http(s) URL is not linked.
func TestHowtoSourceAndRelays(t *testing.T) {
	in := Input{Now: t0, ReadRelays: []string{"wss://relay.one.example/", "wss://RELAY.one.example", "not a relay", "wss://relay.two.example"},
		SourceURL: "https://git.example/vesper"}
	out, _ := buildFixture(t, in)
	howto := readSite(t, out, "how-to-play.html")
	for _, want := range []string{
		`Its source: <a href="https://git.example/vesper">https://git.example/vesper</a>.`,
		`This site's daemon reads these relays: <code>wss://relay.one.example</code>, <code>wss://relay.two.example</code>, and the write relays each player names in their NIP-65 relay list`,
		`export VESPER_RELAYS=wss://relay.one.example,wss://relay.two.example`,
	} {
		if !strings.Contains(howto, want) {
			t.Errorf("the how-to lacks %q", want)
		}
	}
	for _, src := range []string{"", "javascript:alert(1)", "ftp://x.example/", "https://user:pw@x.example/"} {
		out, _ := buildFixture(t, Input{Now: t0, SourceURL: src})
		howto := readSite(t, out, "how-to-play.html")
		for _, want := range []string{
			"This site's operator has not said where its source is published (they would with <code>--source-url</code>)",
			"This site's daemon reads the relays its operator configured (this build was not told which)",
		} {
			if !strings.Contains(howto, want) {
				t.Errorf("source %q: the how-to lacks %q", src, want)
			}
		}
	}
}

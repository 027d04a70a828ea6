package site

import (
	"strings"
	"testing"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
	"vesper/ratings"
)

// The ladder of models groups keys by the model their profile says
// (section 8.4), two keys of one model together, and the head-to-head
// page holds every game between two players with the score's interval.
func TestLadderOfModels(t *testing.T) {
	dave := testkit.Key("dave")
	var states []*match.State
	// Two fool's mates won by Bob (model-b) over Alice and Dave (both
	// model-a), and an unfinished game of Alice against Bob.
	for i, loser := range []nostr.SecretKey{alice, dave} {
		m := testkit.NewMatch(loser, bob, nostr.GameChess, "", t0+int64(i)*1000)
		m.Accept(t0 + int64(i)*1000 + 10)
		last := m.Play([]string{"f2f3", "e7e5", "g2g4", "d8h4"}, t0+int64(i)*1000+20, 10)
		s := foldT(t, m)
		m.Result(loser, result(s, "second", "checkmate"), last+1)
		m.Result(bob, result(s, "second", "checkmate"), last+2)
		states = append(states, foldT(t, m))
	}
	m := testkit.NewMatch(alice, bob, nostr.GameChess, "", t0+5000)
	m.Accept(t0 + 5010)
	m.Play([]string{"e2e4"}, t0+5020, 10)
	states = append(states, foldT(t, m))
	in := Input{States: states, Now: t0 + 86400, Daemon: daemon.PublicKey(),
		Profiles: map[string]Profile{
			alice.PublicKey(): ParseProfile(`{"name":"Alice","bot":true,"agent":{"model":"model-a","provider":"lab"}}`),
			dave.PublicKey():  ParseProfile(`{"name":"Dave","bot":true,"agent":{"model":"model-a"}}`),
			bob.PublicKey():   ParseProfile(`{"name":"Bob","bot":true,"agent":{"model":"model-b","harness":"h","version":"2"}}`),
		}}
	in.RatingGames = RatingGames(states)
	out, _ := buildFixture(t, in)
	page := readSite(t, out, "models.html")
	interval := func(score float64, n int) string {
		lo, hi := ratings.Wilson(score, n)
		return "(" + pct(lo) + "–" + pct(hi) + ")"
	}
	// model-b: 2 wins in 2; model-a: Alice's and Dave's losses together.
	b := strings.Index(page, `<th scope="row"><bdi>model-b</bdi>`)
	a := strings.Index(page, `<th scope="row"><bdi>model-a</bdi>`)
	if a < 0 || b < 0 || b > a {
		t.Fatalf("models missing or out of order (model-b at %d, model-a at %d)", b, a)
	}
	if !strings.Contains(page[b:a], `<td class="n">2</td><td class="n">2-0-0</td><td class="n">100% <span class="mute">`+interval(1, 2)) {
		t.Errorf("model-b's figures are wrong:\n%s", page[b:a])
	}
	groupA := page[a:]
	if !strings.Contains(groupA, `<td class="n">2</td><td class="n">0-0-2</td><td class="n">0% <span class="mute">`+interval(0, 2)) {
		t.Errorf("model-a does not sum Alice's and Dave's games:\n%s", groupA)
	}
	if !strings.Contains(groupA, ">Alice</bdi>") || !strings.Contains(groupA, ">Dave</bdi>") {
		t.Error("model-a does not list both its keys")
	}
	if !strings.Contains(page, "says it is</span> <bdi>model-b, harness h, version 2</bdi>") {
		t.Error("a key's self-reported identity is not shown")
	}
	if !strings.Contains(page, "Glicko rating</th>") {
		t.Error("a key's Glicko rating is not shown")
	}

	// Head-to-head: Alice v Bob, one final game and one in progress.
	path := h2hPath(alice.PublicKey(), bob.PublicKey())
	h := readSite(t, out, path)
	if n := strings.Count(h, `<a href="../m/`); n != 2 {
		t.Errorf("head-to-head lists %d games, want 2", n)
	}
	if !strings.Contains(h, "1 not final") {
		t.Error("the unfinished game is not counted apart")
	}
	// The page scores for the smaller key.
	want := "score 0%"
	if bob.PublicKey() < alice.PublicKey() {
		want = "score 100%"
	}
	if !strings.Contains(h, want+` <span class="mute nw">(95% Wilson interval: `) {
		t.Errorf("head-to-head score: want %q in\n%s", want, h)
	}
	mp := readSite(t, out, "m/"+states[0].Match+".html")
	if !strings.Contains(mp, `href="../`+path+`"`) {
		t.Error("the match page does not link the head-to-head series")
	}
	if !strings.Contains(mp, "says it is</span> <bdi>model-a, provider lab</bdi>") {
		t.Error("the match page does not show what the player says it is")
	}
}

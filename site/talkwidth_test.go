package site

import (
	"net/http/httptest"
	"strings"
	"testing"

	"vesper/internal/browser"
	"vesper/internal/testkit"
	"vesper/nostr"
)

// hostileTalk is fool's mate in which White's first move carries a
// 300-character comment without a space and a verified 10,000-character
// reasoning without a space or a line break, and Black's first move is a
// random fallback: the talk one player can publish to wreck the page for
// both.
func hostileTalk(t *testing.T) (*talkGame, string, string) {
	t.Helper()
	g := &talkGame{m: testkit.NewMatch(alice, bob, nostr.GameChess, "", t0)}
	g.m.Accept(t0 + 10)
	comment := strings.Repeat("W", 300)
	reasoning := "f3" + strings.Repeat("x", 9998)
	for i, san := range []string{"f3", "e5", "g4", "Qh4#"} {
		k, talk := alice, nostr.Talk{}
		salt, text := nostr.NewSalt(), "plan "+san
		if i%2 == 1 {
			k = bob
		}
		switch i {
		case 0:
			text, talk.Comment = reasoning, comment
		case 1:
			talk.Fallback = nostr.FallbackRandom
		}
		talk.Reasoning = nostr.ReasoningHash(salt, text)
		ev := g.m.Add(k, nostr.WithTalk(nostr.NewMove(g.m.ID, i+1, san, t0+20+int64(i)*10), talk))
		g.moves, g.salts, g.texts = append(g.moves, ev), append(g.salts, salt), append(g.texts, text)
		g.end = int64(ev.CreatedAt)
	}
	s := foldT(t, g.m)
	g.m.Result(alice, result(s, "second", "checkmate"), g.end+10)
	g.m.Result(bob, result(s, "second", "checkmate"), g.end+20)
	g.reveal(alice, g.end+30, "", 0, 2)
	g.reveal(bob, g.end+31, "", 1, 3)
	return g, comment, reasoning
}

// The talk at its ply in the replay, folded when long, the fallback move
// marked with a dagger and explained: read from the page's HTML.
func TestTalkInReplay(t *testing.T) {
	g, comment, reasoning := hostileTalk(t)
	out := buildTalk(t, g)
	page := readSite(t, out, "m/"+g.m.ID+".html")
	lintSite(t, out) // the steps' links to the talk rows, the rows' to the events

	step := page[strings.Index(page, `<section id="ply-1">`):]
	step = step[:strings.Index(step, "</section>")]
	if !strings.Contains(step, `<span class="mute">Comment:</span> <bdi class="talk">`+comment+`</bdi>`) {
		t.Errorf("ply 1's comment is not in its replay step:\n%.600s", step)
	}
	if !strings.Contains(step, "f3"+strings.Repeat("x", 198)+"…") || strings.Contains(step, reasoning[:300]) {
		t.Errorf("ply 1's step does not show the reasoning's first 200 characters alone:\n%.600s", step)
	}
	if !strings.Contains(step, `href="#talk-`+g.moves[0].ID[:shortLen]+`"`) {
		t.Error("ply 1's step does not link its whole talk")
	}
	row := page[strings.Index(page, `id="talk-`+g.moves[0].ID[:shortLen]+`"`):]
	row = row[:strings.Index(row, "</tr>")]
	if !strings.Contains(row, `<details class="fold"><summary><span class="fh"><bdi class="talk">f3`+strings.Repeat("x", foldRunes-2)+"…") ||
		!strings.Contains(row, reasoning+"</bdi></pre></details>") {
		t.Errorf("the long reasoning is not folded with its first lines shown:\n%.300s", row)
	}
	step2 := page[strings.Index(page, `<section id="ply-2">`):]
	step2 = step2[:strings.Index(step2, "</section>")]
	if !strings.Contains(step2, "† <span class=\"mute\">fallback:</span> the player&#39;s program chose this move at random, not its model") {
		t.Errorf("the fallback move's step does not explain it:\n%.600s", step2)
	}
	if !strings.Contains(page, `e5<span title="fallback: not the model's move">†</span></a>`) {
		t.Error("the fallback move is not marked with a dagger in the move list")
	}
	if !strings.Contains(page, "† marks a move the player's program chose itself (at random), not its model") {
		t.Error("the dagger is not explained under the moves")
	}
}

// The same page at 1280 and 390 px in headless Chromium: no wider than the
// window, and the folded reasoning's row no taller than a screen or two.
func TestHostileTalkFitsTheScreen(t *testing.T) {
	bin := browser.Chromium(t)
	g, _, _ := hostileTalk(t)
	out := buildTalk(t, g)
	srv := httptest.NewServer(staticFiles(out))
	defer srv.Close()
	br := browser.Start(t, bin)
	for _, width := range []int{1280, 390} {
		br.Open(t, srv.URL+"/m/"+g.m.ID+".html", width)
		var got struct {
			Scroll, Client int
			Row, Table     float64
			Steps          float64
			Display        string
		}
		br.Eval(t, `(() => ({scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth,
			row: document.getElementById("talk-`+g.moves[0].ID[:shortLen]+`").getBoundingClientRect().height,
			table: document.querySelector("table.talk").getBoundingClientRect().width,
			steps: Math.max(...[...document.querySelectorAll(".steptalk")].map(e => e.scrollWidth)),
			display: getComputedStyle(document.getElementById("talk-`+g.moves[0].ID[:shortLen]+`")).display}))()`, &got)
		// On a phone each move's talk is a block of its own, not a row of
		// a wide table.
		if want := map[int]string{1280: "table-row", 390: "block"}[width]; got.Display != want {
			t.Errorf("%d px: a move's talk is displayed as %q, want %q", width, got.Display, want)
		}
		if got.Scroll > got.Client+1 {
			t.Errorf("%d px: the page is %d px wide in a %d px window", width, got.Scroll, got.Client)
		}
		// The table may not scroll sideways inside its frame either: a reader
		// would have to scroll every row to read one comment.
		if got.Table > float64(got.Client) || got.Steps > float64(got.Client) {
			t.Errorf("%d px: the talk table is %.0f px and the replay's talk %.0f px wide in a %d px window", width, got.Table, got.Steps, got.Client)
		}
		if got.Row > 1200 {
			t.Errorf("%d px: the row of the long reasoning is %.0f px tall", width, got.Row)
		}
		t.Logf("%d px: page %d/%d px wide, talk table %.0f px wide, row %.0f px tall", width, got.Scroll, got.Client, got.Table, got.Row)
	}
}

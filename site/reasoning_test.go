package site

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
)

// talkGame is fool's mate in which both players comment on and commit
// reasoning for every move (PROTOCOL.md section 8), then sign the result.
// Alice's moves report attempts and usage; Bob's report nothing.
type talkGame struct {
	m            *testkit.Match
	moves        []*nostr.Event
	salts, texts []string
	end          int64 // created_at of the mate
	signed       int64 // created_at of the last signature
}

func newTalkGame(t *testing.T, at int64, live bool) *talkGame {
	t.Helper()
	g := &talkGame{m: testkit.NewMatch(alice, bob, nostr.GameChess, "", at)}
	g.m.Accept(at + 10)
	sans := []string{"f3", "e5", "g4", "Qh4#"}
	if live {
		sans = sans[:3]
	}
	for i, san := range sans {
		k, talk := alice, nostr.Talk{}
		if i%2 == 0 {
			n, in := 2, 1200.0
			talk.Attempts, talk.Usage = &n, &nostr.Usage{InputTokens: &in}
		} else {
			k = bob
		}
		salt, text := nostr.NewSalt(), "plan "+strings.Repeat("x", i)+": I play "+san+" now"
		talk.Comment, talk.Reasoning = "comment on "+san, nostr.ReasoningHash(salt, text)
		ev := g.m.Add(k, nostr.WithTalk(nostr.NewMove(g.m.ID, i+1, san, at+20+int64(i)*10), talk))
		g.moves, g.salts, g.texts = append(g.moves, ev), append(g.salts, salt), append(g.texts, text)
		g.end = int64(ev.CreatedAt)
	}
	if !live {
		s := foldT(t, g.m)
		g.m.Result(alice, result(s, "second", "checkmate"), g.end+10)
		g.m.Result(bob, result(s, "second", "checkmate"), g.end+20)
		g.signed = g.end + 20
	}
	return g
}

// reveal signs a reveal by k of the moves idx (indexes into g.moves); a
// non-empty salt replaces the committed one.
func (g *talkGame) reveal(k nostr.SecretKey, at int64, salt string, idx ...int) *nostr.Event {
	var entries []nostr.RevealEntry
	for _, i := range idx {
		s := g.salts[i]
		if salt != "" {
			s = salt
		}
		entries = append(entries, nostr.RevealEntry{Event: g.moves[i].ID, Salt: s, Text: g.texts[i]})
	}
	evs, err := nostr.NewReveal(g.m.ID, entries, at)
	if err != nil || len(evs) != 1 {
		panic(err)
	}
	return g.m.Add(k, evs[0])
}

// buildTalk builds a site of the game alone and returns its output dir.
func buildTalk(t *testing.T, g *talkGame) string {
	t.Helper()
	s := foldT(t, g.m)
	in := Input{States: []*match.State{s}, Now: g.end + 86400, Daemon: daemon.PublicKey(), ListAll: true,
		Profiles: map[string]Profile{
			alice.PublicKey(): ParseProfile(`{"name":"Alice","bot":true,"agent":{"model":"model-a","provider":"lab"}}`),
			bob.PublicKey():   ParseProfile(`{"name":"Bob","bot":true,"agent":{"model":"model-b"}}`),
		}}
	in.RatingGames = RatingGames(in.States)
	out, _ := buildFixture(t, in)
	return out
}

func readSite(t *testing.T, out, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// reasoningFile is reasoning.json as a reader decodes it.
type reasoningFile struct {
	Match   string `json:"match"`
	Over    bool   `json:"over"`
	Entries []struct {
		Event     string  `json:"event"`
		Status    string  `json:"status"`
		Text      *string `json:"text"`
		NamesMove *bool   `json:"names_move"`
		Ply       *int    `json:"ply"`
	} `json:"entries"`
	Ignored []struct {
		Reveal, Reason string
	} `json:"ignored"`
}

func readReasoning(t *testing.T, out, id string) reasoningFile {
	t.Helper()
	var f reasoningFile
	if err := json.Unmarshal([]byte(readSite(t, out, "m/"+id+".reasoning.json")), &f); err != nil {
		t.Fatal(err)
	}
	return f
}

func statusesOf(f reasoningFile) []string {
	var out []string
	for _, e := range f.Entries {
		out = append(out, e.Status)
	}
	return out
}

// Section 8.1-8.3: comments beside their moves, every reasoning verified
// after reveals that follow the final result, the plan-to-move check, and
// self-reported effort marked as such, absent where not reported.
func TestReasoningVerified(t *testing.T) {
	g := newTalkGame(t, t0, false)
	g.reveal(alice, g.signed+5, "", 0, 2)
	g.reveal(bob, g.signed+6, "", 1, 3)
	out := buildTalk(t, g)
	page := readSite(t, out, "m/"+g.m.ID+".html")
	for i, mv := range g.moves {
		if !strings.Contains(page, `id="talk-`+mv.ID[:shortLen]+`"`) {
			t.Fatalf("move %d has no row in the talk table", i+1)
		}
		if !strings.Contains(page, esc(g.texts[i])) {
			t.Errorf("move %d: the verified reasoning %q is not shown", i+1, g.texts[i])
		}
		c, _ := nostr.Comment(mv)
		if !strings.Contains(page, esc(c)) {
			t.Errorf("move %d: comment %q not shown", i+1, c)
		}
	}
	if n := strings.Count(page, `rs-verified">verified: the hash matches`); n != 4 {
		t.Errorf("%d moves marked verified, want 4", n)
	}
	if strings.Contains(page, "rs-early") || strings.Contains(page, "rs-mismatch") {
		t.Error("a timely, matching reveal is marked early or mismatched")
	}
	if n := strings.Count(page, "<br><span class=\"mute\">the reasoning</span> names the move played"); n != 4 {
		t.Errorf("%d moves whose plan names the move, want 4", n)
	}
	// Alice reported attempts and usage, Bob nothing: absent, never 0.
	if !strings.Contains(page, "refused answers before this move: 2<br>usage: input tokens 1200") {
		t.Error("Alice's reported attempts and usage are not shown")
	}
	if !strings.Contains(page, `refused answers before this move: <span class="mute">not reported</span><br>usage: <span class="mute">not reported</span>`) {
		t.Error("Bob's unreported attempts and usage are not shown as absent")
	}
	if !strings.Contains(page, "Refused answers <span class=\"mute\">(self-reported)</span>") {
		t.Error("attempts are not marked self-reported")
	}
	// Per player over its games, on its page (from the cards).
	ap := readSite(t, out, "p/"+alice.PublicKey()+".html")
	if !strings.Contains(ap, "The reasoning names the move played: <strong>2 of 2</strong>") || !strings.Contains(ap, "(self-reported)</span>: 4 over 2 moves") {
		t.Error("Alice's page does not sum her plan checks and reported attempts")
	}
	if bp := readSite(t, out, "p/"+bob.PublicKey()+".html"); !strings.Contains(bp, `(self-reported)</span>: <span class="mute">not reported</span>`) {
		t.Error("Bob's page does not show his unreported attempts as absent")
	}
	f := readReasoning(t, out, g.m.ID)
	if got := strings.Join(statusesOf(f), ","); got != "verified,verified,verified,verified" {
		t.Fatalf("reasoning.json statuses %s", got)
	}
	for i, e := range f.Entries {
		if e.Text == nil || *e.Text != g.texts[i] || e.NamesMove == nil || !*e.NamesMove || e.Ply == nil || *e.Ply != i+1 {
			t.Errorf("reasoning.json entry %d: %+v", i, e)
		}
	}
	// match.json carries the reveals exactly as signed, and the summary a
	// verifier computes from it is the one without them.
	var mj struct {
		Events []json.RawMessage `json:"events"`
	}
	raw := readSite(t, out, "m/"+g.m.ID+".json")
	if err := json.Unmarshal([]byte(raw), &mj); err != nil {
		t.Fatal(err)
	}
	var evs []*nostr.Event
	reveals := 0
	for _, r := range mj.Events {
		ev, err := nostr.ParseEvent(r)
		if err != nil {
			t.Fatal(err)
		}
		if err := nostr.Verify(ev); err != nil {
			t.Fatalf("event %s in match.json does not verify: %v", ev.ID, err)
		}
		if ev.Kind == nostr.KindReveal {
			reveals++
		}
		evs = append(evs, ev)
	}
	if reveals != 2 || len(evs) != len(g.m.Events) {
		t.Fatalf("match.json holds %d events, %d reveals; want %d and 2", len(evs), reveals, len(g.m.Events))
	}
	with, err := match.Fold(g.m.ID, evs, nil)
	if err != nil {
		t.Fatal(err)
	}
	without := foldT(t, newTalkGameNoReveals(g))
	if a, b := string(match.MarshalLine(with.Summary(0))), string(match.MarshalLine(without.Summary(0))); a != b {
		t.Fatalf("reveals change the summary:\n%s\n%s", a, b)
	}
}

// newTalkGameNoReveals is g's match without its reveals.
func newTalkGameNoReveals(g *talkGame) *testkit.Match {
	m := *g.m
	m.Events = nil
	for _, ev := range g.m.Events {
		if ev.Kind != nostr.KindReveal {
			m.Events = append(m.Events, ev)
		}
	}
	return &m
}

// Section 8.2: a reveal with the wrong salt does not verify, and its text
// is never shown as the player's; one before the end is marked early; one
// signed by the opponent is ignored.
func TestReasoningNotVerified(t *testing.T) {
	g := newTalkGame(t, t0, false)
	g.reveal(alice, g.signed+5, strings.Repeat("0", nostr.SaltLen), 0) // wrong salt
	g.reveal(alice, g.end-1, "", 2)                                    // before the mate
	g.reveal(alice, g.signed+7, "", 1)                                 // Bob's move, by Alice
	out := buildTalk(t, g)
	page := readSite(t, out, "m/"+g.m.ID+".html")
	f := readReasoning(t, out, g.m.ID)
	if got := strings.Join(statusesOf(f), ","); got != "mismatch,unrevealed,early,unrevealed" {
		t.Fatalf("reasoning.json statuses %s", got)
	}
	if strings.Contains(page, esc(g.texts[0])) || f.Entries[0].Text != nil {
		t.Error("the text of a reveal that does not match is shown")
	}
	if !strings.Contains(page, `rs-mismatch">does not match`) {
		t.Error("the mismatch is not marked")
	}
	if !strings.Contains(page, `rs-early">verified, but revealed during the game`) || !strings.Contains(page, esc(g.texts[2])) {
		t.Error("the early reveal is not shown marked as revealed during the game")
	}
	if strings.Contains(page, esc(g.texts[1])) || f.Entries[1].Text != nil {
		t.Error("a reveal by another key is shown as the author's reasoning")
	}
	if len(f.Ignored) != 1 || !strings.Contains(f.Ignored[0].Reason, "another key") {
		t.Errorf("ignored %+v, want the reveal by the other key", f.Ignored)
	}
	if !strings.Contains(page, "Reveal entries ignored") {
		t.Error("the ignored reveal entry is not listed on the page")
	}
	// Every link to an event's row (the talk table's, the ignored
	// reveal's, the signatures') lands on an id of the page.
	lintSite(t, out)
}

// Section 8.2: reasoning is never shown while the game is live, even
// when its author revealed it.
func TestReasoningLiveHidden(t *testing.T) {
	g := newTalkGame(t, t0, true)
	g.reveal(alice, g.end+5, "", 0, 2)
	out := buildTalk(t, g)
	page := readSite(t, out, "m/"+g.m.ID+".html")
	for i, text := range g.texts {
		if strings.Contains(page, esc(text)) || strings.Contains(page, esc(text[:10])) {
			t.Errorf("move %d: reasoning shown on a live game's page", i+1)
		}
	}
	if strings.Contains(page, "names the move") {
		t.Error("a plan check is shown on a live game's page")
	}
	if !strings.Contains(page, "revealed during the game, shown after it") {
		t.Error("the early reveal is not marked")
	}
	f := readReasoning(t, out, g.m.ID)
	for i, e := range f.Entries {
		if e.Text != nil || e.NamesMove != nil {
			t.Errorf("reasoning.json entry %d of a live game shows %v", i, e)
		}
	}
	// The comments are public at once.
	if c, _ := nostr.Comment(g.moves[0]); !strings.Contains(page, esc(c)) {
		t.Error("a live game's comment is not shown")
	}
}

// Section 8.1: at most 300 code points of a comment are shown, marked as
// cut; a comment on an ignored move is shown with it, as ignored.
func TestCommentCut(t *testing.T) {
	m := testkit.NewMatch(alice, bob, nostr.GameChess, "", t0)
	m.Accept(t0 + 10)
	long := strings.Repeat("é", 299) + "XY" // 301 code points
	m.Add(alice, nostr.WithTalk(nostr.NewMove(m.ID, 1, "e4", t0+20), nostr.Talk{Comment: long}))
	bad := m.Add(alice, nostr.WithTalk(nostr.NewMove(m.ID, 3, "d4", t0+30), nostr.Talk{Comment: "out of turn"}))
	s := foldT(t, m)
	in := Input{States: []*match.State{s}, Now: t0 + 100, ListAll: true}
	out, _ := buildFixture(t, in)
	page := readSite(t, out, "m/"+m.ID+".html")
	if !strings.Contains(page, strings.Repeat("é", 299)+"X</bdi>") || strings.Contains(page, "XY") {
		t.Error("the comment is not cut at 300 code points")
	}
	if !strings.Contains(page, "(cut at 300 characters)") {
		t.Error("the cut comment is not marked as cut")
	}
	row := page[strings.Index(page, `id="talk-`+bad.ID[:shortLen]+`"`):]
	row = row[:strings.Index(row, "</tr>")]
	if !strings.Contains(row, "out of turn") || !strings.Contains(row, `tag warn">ignored`) {
		t.Errorf("the ignored move's comment is not shown with it as ignored: %s", row)
	}
}

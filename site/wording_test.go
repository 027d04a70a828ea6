package site

import (
	"html"
	"regexp"
	"strings"
	"testing"

	"vesper/match"
)

// Issue 26's "Misleading" items, each as the sentence a reader sees.

var (
	tagRE   = regexp.MustCompile(`<[^>]*>`)
	spaceRE = regexp.MustCompile(`\s+`)
)

// pageText is a page as a reader reads it: no markup, entities decoded,
// runs of white space as one space.
func pageText(page string) string {
	return spaceRE.ReplaceAllString(html.UnescapeString(tagRE.ReplaceAllString(page, "")), " ")
}

// wants fails for each sentence text lacks, and each it should not hold.
func wants(t *testing.T, where, text string, has, hasNot []string) {
	t.Helper()
	for _, w := range has {
		if !strings.Contains(text, w) {
			t.Errorf("%s: missing %q", where, w)
		}
	}
	for _, w := range hasNot {
		if strings.Contains(text, w) {
			t.Errorf("%s: still says %q", where, w)
		}
	}
}

// TestStrangersMatchWording: on the hostile world's strangers' match,
// a stranger's move is not "not this author's turn" (item 5), the
// invisible character of Alice's ignored e\u200B5 is shown (item 6), and
// the timeout a third party ruled is dated by the clock (item 7).
func TestStrangersMatchWording(t *testing.T) {
	m := strangersMatch(t)
	out, _ := buildFixture(t, hostileInput(t))
	text := pageText(readPage(t, out, "m/"+m.ID+".html"))
	s := foldT(t, m)
	ranOut := date(s.Clock().MoveDeadline())
	wants(t, "the strangers' match", text, []string{
		strangerMove,
		"e⟨U+200B⟩5",
		"won by timeout after 1 move, when Black's 24-hour clock ran out at " + ranOut +
			"; the arbiter's ruling that decided it is dated " + date(s.EndedAt) + ".",
	}, []string{"Not this author's turn", " e5 "})
	if ranOut == date(s.EndedAt) {
		t.Fatal("the fixture's ruling is dated when the clock ran out: the test shows nothing")
	}
}

// TestTimeoutClaimDatedByClock (item 7): a claim is dated apart from the
// clock it claims on, too.
func TestTimeoutClaimDatedByClock(t *testing.T) {
	f := newFixture(t)
	out, _ := buildFixture(t, f.in)
	s := foldT(t, f.games["timeout"])
	text := pageText(readPage(t, out, "m/"+f.ids["timeout"]+".html"))
	wants(t, "the timeout match", text, []string{
		"when White's 24-hour clock ran out at " + date(s.Clock().MoveDeadline()) +
			"; the timeout claim that decided it is dated " + date(s.EndedAt) + ".",
	}, nil)
}

// TestSignatureWording (item 9): a signature that is not final reads as a
// person would write it.
func TestSignatureWording(t *testing.T) {
	f := newFixture(t)
	out, _ := buildFixture(t, f.in)
	text := pageText(readPage(t, out, "m/"+f.ids["five"]+".html"))
	wants(t, "the five's page", text, []string{"The first player signed 1-0 after 9 plies"},
		[]string{"signature of the first player: first"})
}

// TestInvitationOpponentNamed (item 10): the challenger's games table
// names the invited player, not "nobody yet".
func TestInvitationOpponentNamed(t *testing.T) {
	f := newFixture(t)
	out, _ := buildFixture(t, f.in)
	page := readPage(t, out, "p/"+carol.PublicKey()+".html")
	row := ""
	for _, tr := range strings.Split(page, "<tr>") {
		if strings.Contains(tr, "m/"+f.ids["invite"]+".html") {
			row = tr
		}
	}
	if !strings.Contains(row, "p/"+alice.PublicKey()+".html") || strings.Contains(row, "nobody yet") {
		t.Errorf("carol's invitation of alice reads %q", pageText(row))
	}
}

// TestProfileNotKnownYet (item 3): an account whose profile this verifier
// has not fetched is not said to lack "bot": true.
func TestProfileNotKnownYet(t *testing.T) {
	f := newFixture(t)
	delete(f.in.Profiles, carol.PublicKey())
	f.in.Profiles[bob.PublicKey()] = Profile{Name: "Bob"} // known, no bot
	out, _ := buildFixture(t, f.in)
	carolText := pageText(readPage(t, out, "p/"+carol.PublicKey()+".html"))
	wants(t, "carol's page", carolText, []string{"no profile of it is known here yet"}, []string{`does not declare "bot": true`})
	bobText := pageText(readPage(t, out, "p/"+bob.PublicKey()+".html"))
	wants(t, "bob's page", bobText, []string{`its profile does not declare "bot": true`}, []string{"no profile of it is known"})
}

// TestIndexCountsUnlistedRated (item 4): the index does not say "No rated
// game yet" of a game whose ratings page counts rated accounts.
func TestIndexCountsUnlistedRated(t *testing.T) {
	f := newFixture(t)
	for _, k := range []string{alice.PublicKey(), bob.PublicKey()} {
		p := f.in.Profiles[k]
		p.Bot = false
		f.in.Profiles[k] = p
	}
	out, _ := buildFixture(t, f.in)
	text := pageText(readPage(t, out, "index.html"))
	gomoku := text[strings.Index(text, "Gomoku ("):]
	if gs := match.Games(); gs[len(gs)-1].Kind != "gomoku" { // cut at the next game's section
		for i, g := range gs[:len(gs)-1] {
			if g.Kind == "gomoku" {
				gomoku = gomoku[:strings.Index(gomoku, gs[i+1].Name+" (")]
			}
		}
	}
	wants(t, "the index's gomoku ratings", gomoku, []string{"No listed account is rated yet; 2 rated accounts are not listed."},
		[]string{"No rated game yet"})
	ratings := pageText(readPage(t, out, "ratings/gomoku.html"))
	wants(t, "the gomoku ratings page", ratings, []string{"2 other rated accounts are not"}, nil)
}

// TestHouseColumnIsTheHousesDecision (item 8): the index says "may accept
// now" only of a challenge the house's daemon decided to accept, and says
// why it will not otherwise; with no decision passed it promises nothing.
func TestHouseColumnIsTheHousesDecision(t *testing.T) {
	f := newFixture(t)
	id := f.ids["open"]
	row := func(in Input) string {
		t.Helper()
		out, _ := buildFixture(t, in)
		page := readPage(t, out, "index.html")
		for _, tr := range strings.Split(page, "<tr>") {
			if strings.Contains(tr, "m/"+id+".html") {
				return pageText(tr)
			}
		}
		t.Fatal("the open challenge is not on the index")
		return ""
	}
	full := "the house already plays 5 games at once, its limit"
	for _, c := range []struct {
		name       string
		house      map[string]HouseVerdict
		now        int64
		has, hasNo string
	}{
		{"cap reached", map[string]HouseVerdict{id: {Why: full}}, now, full, "may accept"},
		{"accepts", map[string]HouseVerdict{id: {Accept: true}}, now, "may accept now", full},
		{"young", map[string]HouseVerdict{id: {Why: "waits", Wait: now + 1200}}, now, "may accept in 20 min", "may accept now"},
		{"not in the plan", map[string]HouseVerdict{}, now, "not seen by the house yet", "may accept"},
		{"no decision, days old", nil, now + 3*86400, houseUnknown, "may accept now"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := f.in
			in.HouseOpen, in.Now = c.house, c.now
			got := row(in)
			if !strings.Contains(got, c.has) || strings.Contains(got, c.hasNo) {
				t.Errorf("the house column reads %q; want %q, not %q", got, c.has, c.hasNo)
			}
		})
	}
}

// TestMatchPageHouseDecision (item 8): an open challenge's page says the
// house will not accept it when its daemon decided so, and a build that
// carries the page over renders it again when the decision changes.
func TestMatchPageHouseDecision(t *testing.T) {
	f := newFixture(t)
	id := f.ids["open"]
	in := f.in
	in.Now = now + 3600 // past the 30 minutes
	out, _ := buildFixture(t, in)
	may := "this site's house may now accept it"
	wants(t, "no decision", pageText(readPage(t, out, "m/"+id+".html")), []string{may}, []string{"will not"})
	full := "the house already plays 5 games at once, its limit"
	in.HouseOpen = map[string]HouseVerdict{id: {Why: full}}
	if _, err := Update(in, nil, func(string) (*match.State, map[string]int64, error) {
		return foldT(t, f.games["open"]), nil, nil
	}, out); err != nil {
		t.Fatal(err)
	}
	wants(t, "cap reached", pageText(readPage(t, out, "m/"+id+".html")),
		[]string{"the house will not now: " + full + "."}, []string{may})
}

// TestShownContentMarksHidden (item 6): what a reader could not see in an
// event's content is named, never dropped; text stays as it is.
func TestShownContentMarksHidden(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"e\u200B5", "e⟨U+200B⟩5"},
		{"e5\u00A0", "e5⟨U+00A0⟩"},
		{"\u202Ee4", "⟨U+202E⟩e4"},
		{"e\u200D5", "e⟨U+200D⟩5"}, // the joiner names keep for emoji
		{"a\x00b\tc\nd", "a⟨U+0000⟩b c d"},
		{"bad \xff", "bad \uFFFD"},
		{"Qh4# ½ 王", "Qh4# ½ 王"},
		{"abcdef", "abc…"},
	} {
		n := 120
		if c.in == "abcdef" {
			n = 3
		}
		if got := shownContent(c.in, n); got != c.want {
			t.Errorf("shownContent(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

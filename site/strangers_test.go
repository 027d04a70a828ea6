package site

import (
	"strings"
	"testing"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
)

var (
	// eve signs a move in a game she does not play, judge rules on one:
	// authors who play no match of the site (issue 26, item 2).
	eve   = testkit.Key("eve")
	judge = testkit.Key("judge")
)

// strangersMatch is a chess game that Alice lets run out of time after
// mallory's first move: a stranger's move and Alice's move with an
// invisible character in it are ignored, mallory asks for arbitration
// and a third-party arbiter (judge, who plays nowhere) rules the timeout.
func strangersMatch(t testing.TB) *testkit.Match {
	t.Helper()
	m := testkit.NewMatch(mallory, alice, "chess", "", t0+500)
	m.Accept(t0 + 510)
	m.Move(mallory, 1, "e2e4", t0+520)
	m.Move(eve, 2, "e7e5", t0+530)
	m.Move(alice, 2, "e\u200B5", t0+540)
	s := foldT(t, m)
	m.Request(mallory, t0+520+match.MoveClock+1)
	m.Ruling(judge, result(s, "first", "timeout"), t0+520+match.MoveClock+600)
	if s = foldT(t, m); s.FinalBy != match.FinalByRuling {
		t.Fatalf("the strangers' match is final by %q, want by ruling", s.FinalBy)
	}
	return m
}

// TestStrangersShownUnlinked (issue 26, item 2): a third-party arbiter
// and a stranger who play no match are named on the match page, without
// a link to a player page the build never makes (lintSite, run on the
// hostile world by TestHostileContent, checks every link resolves).
func TestStrangersShownUnlinked(t *testing.T) {
	m := strangersMatch(t)
	in := hostileInput(t)
	out, _ := buildFixture(t, in)
	page := readPage(t, out, "m/"+m.ID+".html")
	for name, k := range map[string]nostr.SecretKey{"the arbiter": judge, "the stranger": eve} {
		if !strings.Contains(page, shortNpub(nostr.Npub(k.PublicKey()))) {
			t.Errorf("%s is not named on the match page", name)
		}
		if strings.Contains(page, "p/"+k.PublicKey()+".html") {
			t.Errorf("%s is linked to a player page", name)
		}
	}
	if !strings.Contains(page, `href="../p/`+alice.PublicKey()+`.html"`) {
		t.Error("the players are no longer linked")
	}
}

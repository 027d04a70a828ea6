package site

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
)

// TestDeadlineSecondAgreesWithTheFold: built one second before the
// pending clock's last second, at it, and one second after, the site says
// the clock ran out (the match page, the index's list of games waiting for
// a claim, the match key's flag) exactly when the fold would count a
// timeout claim stamped then, which is strictly after the last second
// (PROTOCOL.md section 2, Results). A claim stamped at the last second is
// shown as premature, with the clock's start the fold gives.
func TestDeadlineSecondAgreesWithTheFold(t *testing.T) {
	m := testkit.NewMatch(alice, bob, "chess", "", t0)
	m.Accept(t0 + 60)
	last := m.Play([]string{"e2e4", "e7e5"}, t0+120, 3600) // White to play ply 3
	deadline := last + match.MoveClock
	claimAt := func(st *match.State, at int64) *nostr.Event {
		return testkit.Sign(bob, nostr.NewResult(m.ID, st.TimeoutWin(), at))
	}
	early := m.Add(bob, claimAt(foldT(t, m), deadline)) // premature, listed as ignored
	st := foldT(t, m)
	if ig := ignoredEntry(st, early.ID); ig == nil || ig.Token != match.IgnClaimPremature || ig.ClockStart != last || ig.Deadline != deadline {
		t.Fatalf("the fold lists the claim at the last second as %+v, want premature with clock start %d", ig, last)
	}
	for _, at := range []int64{deadline - 1, deadline, deadline + 1} {
		counts := st.Check(claimAt(st, at), at) == nil
		if counts != (at > deadline) {
			t.Fatalf("at deadline%+d: the fold counts a claim %v", at-deadline, counts)
		}
		in := Input{States: []*match.State{st}, Now: at, ListAll: true}
		out, _ := buildFixture(t, in)
		page := readOut(t, out, "m/"+m.ID+".html")
		index := readOut(t, out, "index.html")
		for what, says := range map[string]bool{
			"the match page":        strings.Contains(page, "The clock ran out at"),
			"the index":             strings.Contains(index, `id="clock-out"`),
			"the match key's clock": matchClock(newCard(st, nil, nil), at).ClockOut,
		} {
			if says != counts {
				t.Errorf("at deadline%+d: %s says the clock ran out: %v, the fold counts a claim: %v", at-deadline, what, says, counts)
			}
		}
		want := "before the clock ran out. A claim counts only when stamped after the clock runs out (24 hours after " + hdate(last) + ")."
		if !strings.Contains(page, want) {
			t.Errorf("at deadline%+d: the page does not word the premature claim from the fold's clock start: want %q", at-deadline, want)
		}
	}
}

func ignoredEntry(s *match.State, id string) *match.Ignored {
	for i := range s.Ignored {
		if s.Ignored[i].ID == id {
			return &s.Ignored[i]
		}
	}
	return nil
}

func readOut(t *testing.T, out, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReasonsFromValues: the page words a reason from the values the fold
// keeps on the ignored entry, never from its English detail, which may
// change wording (here it is nonsense) without the page noticing.
func TestReasonsFromValues(t *testing.T) {
	m := testkit.NewMatch(alice, bob, "chess", "", t0)
	m.Accept(t0 + 60)
	st := foldT(t, m)
	ev := m.Events[1]
	start, deadline := t0+3600, t0+3600+match.MoveClock
	for _, c := range []struct {
		ig   match.Ignored
		want string
	}{
		{match.Ignored{Token: match.IgnWrongPly, Detail: "x", Ply: 7, Expected: 6}, "It is marked ply 7, but the next ply to play was 6."},
		{match.Ignored{Token: match.IgnLate, Detail: "x", ClockStart: start, Deadline: deadline}, "after its 24-hour clock had run out at " + hdate(deadline) + "."},
		{match.Ignored{Token: match.IgnClaimPremature, Detail: "x", ClockStart: start, Deadline: deadline}, "(24 hours after " + hdate(start) + ")."},
		{match.Ignored{Token: match.IgnRequestInvalid, Detail: "deadline 1", Deadline: deadline}, "the deadline (" + hdate(deadline) + ") had not passed"},
	} {
		if got := string(humanReason(st, c.ig, ev, 0, false).Text); !strings.Contains(got, c.want) {
			t.Errorf("%s: %q does not say %q", c.ig.Token, got, c.want)
		}
	}
}

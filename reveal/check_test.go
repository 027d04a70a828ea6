package reveal

import (
	"slices"
	"strings"
	"testing"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
)

// game is fool's mate with committed reasoning on every move: A plays f3
// and g4, B plays e5 and Qh4#, which ends the game at t0+4 (section 8.2).
type game struct {
	m     *testkit.Match
	moves []*nostr.Event
	salts []string
	texts []string
	end   int64
}

const t0 = 1_700_000_000

func newGame(t *testing.T) *game {
	t.Helper()
	g := &game{m: testkit.NewMatch(testkit.Key("a"), testkit.Key("b"), nostr.GameChess, "", t0)}
	g.m.Accept(t0)
	for i, mv := range []string{"f3", "e5", "g4", "Qh4#"} {
		k := g.m.A
		if i%2 == 1 {
			k = g.m.B
		}
		salt, text := nostr.NewSalt(), "plan: "+mv
		ev := nostr.WithTalk(nostr.NewMove(g.m.ID, i+1, mv, int64(t0+1+i)), nostr.Talk{Reasoning: nostr.ReasoningHash(salt, text)})
		g.moves = append(g.moves, g.m.Add(k, ev))
		g.salts, g.texts = append(g.salts, salt), append(g.texts, text)
	}
	g.end = t0 + 4
	return g
}

func (g *game) fold(t *testing.T) *match.State {
	t.Helper()
	st, err := match.Fold(g.m.ID, g.m.Events, nil)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// reveal signs a reveal by k of the given moves (by index) at time at.
func (g *game) reveal(k nostr.SecretKey, at int64, idx ...int) *nostr.Event {
	var entries []nostr.RevealEntry
	for _, i := range idx {
		entries = append(entries, nostr.RevealEntry{Event: g.moves[i].ID, Salt: g.salts[i], Text: g.texts[i]})
	}
	evs, err := nostr.NewReveal(g.m.ID, entries, at)
	if err != nil || len(evs) != 1 {
		panic(err)
	}
	return testkit.Sign(k, evs[0])
}

func statuses(rep Report) []Status {
	var out []Status
	for _, e := range rep.Entries {
		out = append(out, e.Status)
	}
	return out
}

func TestCheck(t *testing.T) {
	g := newGame(t)
	st := g.fold(t)
	if !st.Over || st.EndedAt != g.end || st.EndEvent != g.moves[3].ID {
		t.Fatalf("fixture: over %v ended %d by %s", st.Over, st.EndedAt, st.EndEvent)
	}
	a, b := g.m.A, g.m.B
	wrong := func(k nostr.SecretKey, at int64, i int, text string) *nostr.Event {
		evs, _ := nostr.NewReveal(g.m.ID, []nostr.RevealEntry{{Event: g.moves[i].ID, Salt: g.salts[i], Text: text}}, at)
		return testkit.Sign(k, evs[0])
	}
	cases := []struct {
		name    string
		reveals []*nostr.Event
		want    []Status
		ignored int
	}{
		{"none revealed", nil, []Status{Unrevealed, Unrevealed, Unrevealed, Unrevealed}, 0},
		{"both after the end", []*nostr.Event{g.reveal(a, g.end+10, 0, 2), g.reveal(b, g.end+10, 1, 3)},
			[]Status{Verified, Verified, Verified, Verified}, 0},
		// Section 8.2: "before the created_at of the event that ended the
		// game": a reveal in the very second of the mate is not early.
		{"same second as the end is not early", []*nostr.Event{g.reveal(b, g.end, 1)},
			[]Status{Unrevealed, Verified, Unrevealed, Unrevealed}, 0},
		{"before the end is early", []*nostr.Event{g.reveal(a, g.end-1, 0)},
			[]Status{Early, Unrevealed, Unrevealed, Unrevealed}, 0},
		// The first verified reveal decides: the text was public during the
		// game whatever comes after.
		{"early then again after stays early", []*nostr.Event{g.reveal(a, g.end-1, 0), g.reveal(a, g.end+5, 0)},
			[]Status{Early, Unrevealed, Unrevealed, Unrevealed}, 0},
		{"wrong text is a mismatch", []*nostr.Event{wrong(a, g.end+1, 0, "plan: e4")},
			[]Status{Mismatch, Unrevealed, Unrevealed, Unrevealed}, 0},
		{"a mismatch then the right text verifies", []*nostr.Event{wrong(a, g.end+1, 0, "x"), g.reveal(a, g.end+2, 0)},
			[]Status{Verified, Unrevealed, Unrevealed, Unrevealed}, 0},
		{"by the opponent is ignored", []*nostr.Event{g.reveal(b, g.end+1, 0)},
			[]Status{Unrevealed, Unrevealed, Unrevealed, Unrevealed}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			evs := append(slices.Clone(g.m.Events), c.reveals...)
			rep := Check(st, evs)
			if got := statuses(rep); !slices.Equal(got, c.want) {
				t.Fatalf("statuses %v, want %v", got, c.want)
			}
			if len(rep.Ignored) != c.ignored {
				t.Fatalf("ignored %+v, want %d", rep.Ignored, c.ignored)
			}
			for i, e := range rep.Entries {
				verified := e.Status == Verified || e.Status == Early
				if verified != (e.Text == g.texts[i]) || (!verified && e.Text != "") {
					t.Fatalf("entry %d: status %s with text %q", i, e.Status, e.Text)
				}
			}
			// Order of delivery does not matter.
			rev := slices.Clone(evs)
			slices.Reverse(rev)
			if got := statuses(Check(st, rev)); !slices.Equal(got, c.want) {
				t.Fatalf("reversed: statuses %v, want %v", got, c.want)
			}
		})
	}
}

// Section 8.2: a reveal while the game is live is early even when nothing
// has ended it yet.
func TestCheckLiveGameIsEarly(t *testing.T) {
	g := newGame(t)
	g.m.Events = g.m.Events[:len(g.m.Events)-1] // no mate yet
	st := g.fold(t)
	if st.Over {
		t.Fatal("fixture: the game is over")
	}
	rep := Check(st, append(slices.Clone(g.m.Events), g.reveal(g.m.A, g.end+100, 0)))
	if e, _ := rep.Entry(g.moves[0].ID); e.Status != Early {
		t.Fatalf("status %s, want early", e.Status)
	}
}

func TestCheckIgnores(t *testing.T) {
	g := newGame(t)
	a := g.m.A
	// A move without a reasoning tag, an ignored move with one (wrong ply),
	// and a reveal naming the accept.
	plain := g.m.Add(a, nostr.NewMove(g.m.ID, 9, "e4", g.end+1))
	salt := nostr.NewSalt()
	bad := g.m.Add(a, nostr.WithTalk(nostr.NewMove(g.m.ID, 7, "a3", g.end+2), nostr.Talk{Reasoning: nostr.ReasoningHash(salt, "late")}))
	st := g.fold(t)
	accept := g.m.Events[1]
	evs, _ := nostr.NewReveal(g.m.ID, []nostr.RevealEntry{
		{Event: plain.ID, Salt: salt, Text: "x"},
		{Event: accept.ID, Salt: salt, Text: "x"},
		{Event: bad.ID, Salt: salt, Text: "late"},
	}, g.end+10)
	rv := testkit.Sign(a, evs[0])
	twoG := testkit.Sign(a, &nostr.Event{Kind: nostr.KindReveal, CreatedAt: nostr.Timestamp(g.end + 10),
		Tags: nostr.Tags{{"g", g.m.ID}, {"g", strings.Repeat("d", 64)}}, Content: g.reveal(a, g.end+10, 0).Content})
	huge := testkit.Sign(a, &nostr.Event{Kind: nostr.KindReveal, CreatedAt: nostr.Timestamp(g.end + 10), Tags: nostr.Tags{{"g", g.m.ID}},
		Content: strings.TrimSuffix(g.reveal(a, g.end+10, 0).Content, "}") + `,"pad":"` + strings.Repeat("x", nostr.MaxEventSize) + `"}`})
	junk := testkit.Sign(a, &nostr.Event{Kind: nostr.KindReveal, CreatedAt: nostr.Timestamp(g.end + 10), Tags: nostr.Tags{{"g", g.m.ID}}, Content: `{"reveal":"no"}`})
	other := testkit.Sign(a, &nostr.Event{Kind: nostr.KindReveal, CreatedAt: nostr.Timestamp(g.end + 10), Tags: nostr.Tags{{"g", strings.Repeat("c", 64)}}, Content: evs[0].Content})
	rep := Check(st, append(slices.Clone(g.m.Events), rv, junk, other, twoG, huge))
	if len(rep.Ignored) != 5 {
		t.Fatalf("ignored %+v, want the plain move, the accept, the junk reveal, the one with two g tags and the huge one", rep.Ignored)
	}
	// Neither the reveal with two g tags nor the oversized one verified
	// move 0, though both hold its right salt and text.
	if e, _ := rep.Entry(g.moves[0].ID); e.Status != Unrevealed {
		t.Fatalf("move 0 is %s", e.Status)
	}
	for _, ig := range rep.Ignored {
		if !strings.HasPrefix(ig.Reason, "ignored: ") {
			t.Fatalf("reason %q", ig.Reason)
		}
	}
	// A commitment on a move the fold ignored is checked and shown with it,
	// as ignored (8.1's reading for comments, applied to reasoning).
	e, ok := rep.Entry(bad.ID)
	if !ok || e.Counted || e.Status != Verified || e.Text != "late" {
		t.Fatalf("ignored move's entry %+v", e)
	}
	if e, _ := rep.Entry(g.moves[0].ID); !e.Counted {
		t.Fatal("a counted move reads as ignored")
	}
}

// Section 8.2 lists 4424 results that end or agree a game as committing
// events too.
func TestCheckResultCommits(t *testing.T) {
	g := newGame(t)
	st := g.fold(t)
	salt := nostr.NewSalt()
	res := g.m.Add(g.m.B, nostr.WithTalk(nostr.NewResult(g.m.ID, st.Computed(), g.end+1), nostr.Talk{Reasoning: nostr.ReasoningHash(salt, "mate")}))
	st = g.fold(t)
	evs, _ := nostr.NewReveal(g.m.ID, []nostr.RevealEntry{{Event: res.ID, Salt: salt, Text: "mate"}}, g.end+2)
	rep := Check(st, append(slices.Clone(g.m.Events), testkit.Sign(g.m.B, evs[0])))
	if e, ok := rep.Entry(res.ID); !ok || e.Status != Verified || e.Kind != nostr.KindResult {
		t.Fatalf("result entry %+v", e)
	}
}

func TestNamesMove(t *testing.T) {
	cases := []struct {
		text, san, uci string
		want           bool
	}{
		{"I play e4 to take the centre", "e4", "e2e4", true},
		{"1.e4! is best", "e4", "e2e4", true},
		{"e2e4", "e4", "e2e4", true},
		{"E2E4", "e4", "e2e4", false},
		{"Qh4 mates", "Qh4#", "d8h4", true},
		{"Qh4# mates", "Qh4", "d8h4", true},
		{"qh4 mates", "Qh4#", "", false},
		{"bxc3 wins a piece", "Bxc3", "", false},
		{"Nf3 develops", "f3", "f2f3", false},
		{"e4e5", "e4", "", false},
		{"castle with 0-0", "O-O", "e1g1", true},
		{"castle with O-O-O", "O-O", "e1g1", false},
		{"promote: e8=Q+", "e8=Q", "e7e8q", true},
		{"(h8)", "h8", "", true},
		{"nothing here", "e4", "e2e4", false},
		{"", "", "", false},
	}
	for _, c := range cases {
		if got := NamesMove(c.text, c.san, c.uci); got != c.want {
			t.Errorf("NamesMove(%q, %q, %q) = %v, want %v", c.text, c.san, c.uci, got, c.want)
		}
	}
}

// A lean or compact state (the daemon's, without Events) checks the same:
// the match's events are then taken from the events given.
func TestCheckLeanState(t *testing.T) {
	g := newGame(t)
	st := g.fold(t)
	evs := append(slices.Clone(g.m.Events), g.reveal(g.m.A, g.end+1, 0), g.reveal(g.m.B, g.end-1, 1))
	slices.Reverse(evs)
	want := Check(st, evs)
	for name, s := range map[string]*match.State{"lean": st.Lean(), "compact": st.Compact()} {
		got := Check(s, evs)
		if len(got.Entries) != len(want.Entries) {
			t.Fatalf("%s: %d entries, want %d", name, len(got.Entries), len(want.Entries))
		}
		for i := range got.Entries {
			if got.Entries[i] != want.Entries[i] {
				t.Fatalf("%s: entry %d %+v, want %+v", name, i, got.Entries[i], want.Entries[i])
			}
		}
	}
	if s := statuses(want); !slices.Equal(s, []Status{Verified, Early, Unrevealed, Unrevealed}) {
		t.Fatalf("statuses %v", s)
	}
}

package match

import (
	"bytes"
	"strings"
	"testing"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/testkit"
	"vesper/nostr"
)

// talkScenarios are games whose events get section 8 tags: a mate with
// both signatures, a resignation, an illegal move and a wrong ply (ignored
// events keep their place in the summary), a gomoku game in progress.
var talkScenarios = []struct {
	game  string
	moves []string
}{
	{nostr.GameChess, []string{"f3", "e5", "g4", "Qh4#"}},
	{nostr.GameChess, []string{"e4", "e5", "Ke3", "Nf3", "resign"}},
	{nostr.GameChess, []string{"d4", "d5", "c4", "dxc4", "Qa4+", "c6"}},
	{nostr.GameGomoku, []string{"h8", "h9", "i8", "i9"}},
}

// talkGame signs scenario sc, giving event i the extra tags extra(i) (nil
// for none). Every event has its own second, so the ids the tags change
// never change fold order; results are signed by both players when the
// game ends.
func talkGame(t *testing.T, sc int, extra func(i int) nostr.Tags) (*testkit.Match, []*nostr.Event) {
	s := talkScenarios[sc%len(talkScenarios)]
	m := testkit.NewMatch(testkit.Key("talk-a"), testkit.Key("talk-b"), s.game, "", 1000)
	n := 0
	add := func(k nostr.SecretKey, ev *nostr.Event) *nostr.Event {
		if tags := extra(n); tags != nil {
			ev.Tags = append(ev.Tags, tags...)
		}
		n++
		return m.Add(k, ev)
	}
	m.Accept(1001)
	at := int64(1002)
	for i, mv := range s.moves {
		k := m.A
		if i%2 == 1 {
			k = m.B
		}
		add(k, nostr.NewMove(m.ID, i+1, mv, at))
		at++
	}
	// A move with a wrong ply: ignored, and listed by id in the summary.
	add(m.B, nostr.NewMove(m.ID, 40, "a6", at))
	at++
	st, err := Fold(m.ID, m.Events, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Over {
		add(m.A, nostr.NewResult(m.ID, st.Computed(), at))
		add(m.B, nostr.NewResult(m.ID, st.Computed(), at+1))
	}
	return m, m.Events
}

// FuzzTalkTagsLeaveFoldAlone: section 8's tags are never read by the fold
// (PROTOCOL.md section 8: "a verifier that ignores section 8 reaches the
// same summary"). The same game, with any comment, reasoning, attempts and
// usage tags (well formed or not, once or twice) on any of its moves and
// results, and with reveals of them, folds to the same summary, once each
// tagged event's id is read as its plain twin's.
func FuzzTalkTagsLeaveFoldAlone(f *testing.F) {
	h := nostr.ReasoningHash("00112233445566778899aabbccddeeff", "plan")
	f.Add(uint8(0), uint32(0xffff), "good move", h, "2", `{"output_tokens":5}`, false)
	f.Add(uint8(1), uint32(0b1010), strings.Repeat("é", 400), "XYZ", "-1", `{"cost_usd":-2}`, true)
	f.Add(uint8(2), uint32(0x7), "", "", "", "", false)
	f.Add(uint8(3), uint32(0xff), "resign", "resign", "007", "[]", true)
	f.Fuzz(func(t *testing.T, sc uint8, mask uint32, comment, reasoning, attempts, usage string, twice bool) {
		tags := nostr.Tags{{nostr.CommentTag, comment}, {nostr.ReasoningTag, reasoning}, {nostr.AttemptsTag, attempts}, {nostr.UsageTag, usage}}
		if twice {
			// Repeated tags, and one without a value: readers show none.
			tags = append(append(tags, tags...), gn.Tag{nostr.CommentTag})
		}
		extra := func(i int) nostr.Tags {
			if i >= 32 || mask&(1<<i) == 0 {
				return nil
			}
			return append(nostr.Tags{}, tags...)
		}
		_, plain := talkGame(t, int(sc), func(int) nostr.Tags { return nil })
		m, tagged := talkGame(t, int(sc), extra)
		if len(tagged) != len(plain) {
			// The scenario signs results only for a game the fold ended.
			t.Fatalf("the tags changed the game: %d events with them, %d without", len(tagged), len(plain))
		}
		// A reveal (kind 4427) of every tagged event rides along: the fold
		// must not read it either, nor list it as ignored.
		var entries []nostr.RevealEntry
		for _, ev := range tagged[1:] {
			entries = append(entries, nostr.RevealEntry{Event: ev.ID, Salt: "00112233445566778899aabbccddeeff", Text: reasoning})
		}
		if rvs, err := nostr.NewReveal(m.ID, entries, 1500); err == nil {
			for _, rv := range rvs {
				testkit.Sign(m.A, rv)
			}
			tagged = append(tagged, rvs...)
		}
		for _, ev := range tagged {
			if nostr.TooLarge(ev) {
				t.Skip("a tag made an event exceed section 1's size limit, which the fold rightly reads")
			}
		}
		want := summaryLine(t, m.ID, plain)
		got := summaryLine(t, m.ID, tagged)
		for i := range plain {
			got = bytes.ReplaceAll(got, []byte(tagged[i].ID), []byte(plain[i].ID))
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("tagged summary\n%s\nplain summary\n%s", got, want)
		}
	})
}

func summaryLine(t *testing.T, id string, events []*nostr.Event) []byte {
	st, err := Fold(id, events, nil)
	if err != nil {
		t.Fatal(err)
	}
	return MarshalLine(st.Summary(2000))
}

// The fuzz target's fixture must exercise what it claims: tagged events
// really carry the tags, and the scenarios end, ignore and sign.
func TestTalkFixture(t *testing.T) {
	_, evs := talkGame(t, 0, func(int) nostr.Tags { return nostr.Tags{gn.Tag{nostr.CommentTag, "hi"}} })
	st, err := Fold(evs[0].ID, evs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Final || len(st.Ignored) != 1 {
		t.Fatalf("fixture: final %v, ignored %v", st.Final, st.Ignored)
	}
	if c, _ := nostr.Comment(evs[2]); c != "hi" {
		t.Fatal("fixture: no comment on the first move")
	}
}

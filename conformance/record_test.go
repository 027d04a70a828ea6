package conformance

import (
	"slices"
	"strings"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
	"vesper/site"
)

// TestGameRecord: the NIP-64 record of a final chess match is kind 64
// with the site's PGN as content, which chess.js 1.4.0 loads; an alt tag
// tells the game in words (NIP-31), the match is an e tag naming the
// challenge and its author (NIP-01), the players are p tags. A match whose
// result is not final, or a gomoku match, has none.
func TestGameRecord(t *testing.T) {
	alice, bob, house := testkit.Key("alice"), testkit.Key("bob"), testkit.Key("house")
	t0 := time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC).Unix()
	m := testkit.NewMatch(alice, bob, nostr.GameChess, "", t0)
	m.Accept(t0 + 10)
	end := m.Play([]string{"f2f3", "e7e5", "g2g4", "d8h4"}, t0+20, 10)
	over, err := match.Fold(m.ID, m.Events, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := nostr.Result{Result: nostr.Second, Reason: "checkmate", Plies: 4, FinalHash: over.FinalHash()}
	m.Result(alice, r, end+10)
	m.Result(bob, r, end+20)
	final, err := match.Fold(m.ID, m.Events, nil)
	if err != nil || !final.Final {
		t.Fatalf("not final: %v", err)
	}
	in := site.Input{Profiles: map[string]site.Profile{
		alice.PublicKey(): site.ParseProfile(`{"name":"Alice \"the\" \\o/"}`),
		bob.PublicKey():   site.ParseProfile(`{"name":"Bob"}`),
	}}
	in.RatingGames = site.RatingGames([]*match.State{final})
	exp, err := site.NewExporter(in)
	if err != nil {
		t.Fatal(err)
	}
	text, err := exp.PGN(final)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := exp.GameRecord(final, end+100)
	if err != nil {
		t.Fatal(err)
	}
	testkit.Sign(house, ev)
	if err := nostr.Verify(ev); err != nil {
		t.Fatal(err)
	}
	wantTags := []string{
		"alt\x00" + `Chess game (PGN): Alice "the" \o/ (White) vs Bob (Black), 0-1: Black won by checkmate. A vesper match on nostr, started 2026-06-15.`,
		"e\x00" + m.ID + "\x00\x00" + alice.PublicKey(),
		"p\x00" + alice.PublicKey(),
		"p\x00" + bob.PublicKey(),
	}
	var gotTags []string
	for _, tag := range ev.Tags {
		gotTags = append(gotTags, strings.Join(tag, "\x00"))
	}
	if ev.Kind != 64 || ev.Content != text || int64(ev.CreatedAt) != end+100 || !slices.Equal(gotTags, wantTags) {
		t.Fatalf("record kind %d at %d, tags %q, content\n%s\nwant tags %q, content\n%s", ev.Kind, ev.CreatedAt, gotTags, ev.Content, wantTags, text)
	}
	for _, want := range []string{`[White "Alice 'the' /o/"]`, `[WhiteNpub "` + nostr.Npub(alice.PublicKey()) + `"]`, `[Termination "normal"]`, `[WhiteElo "1500"]`} {
		if !strings.Contains(text, want) {
			t.Errorf("the PGN lacks %s:\n%s", want, text)
		}
	}
	checkExportFormat(t, "record", ev.Content)
	l := loadPGNs(t, map[string]string{"record": ev.Content})["record"]
	if !l.OK || !slices.Equal(l.Moves, final.Moves) || l.Headers["White"] != "Alice 'the' /o/" {
		t.Fatalf("chess.js made %+v of the record", l)
	}

	// Players without a profile are named by their short npub, which the
	// site writes with "…": the record spells it "..." (issue 24).
	t.Run("no profiles", func(t *testing.T) {
		exp, err := site.NewExporter(site.Input{RatingGames: in.RatingGames})
		if err != nil {
			t.Fatal(err)
		}
		ev, err := exp.GameRecord(final, end+100)
		if err != nil {
			t.Fatal(err)
		}
		checkExportFormat(t, "record without profiles", ev.Content)
		l := loadPGNs(t, map[string]string{"record": ev.Content})["record"]
		npub := nostr.Npub(alice.PublicKey())
		if white := l.Headers["White"]; !l.OK || !strings.HasPrefix(white, npub[:8]) || !strings.Contains(white, "...") {
			t.Errorf("chess.js read White %q (%+v), want the short npub %s... spelt in ASCII", white, l, npub[:8])
		}
	})

	t.Run("not final", func(t *testing.T) {
		if _, err := exp.GameRecord(over, end+100); err == nil {
			t.Error("a record for a match whose result is not final")
		}
	})
	t.Run("gomoku", func(t *testing.T) {
		g := testkit.NewMatch(alice, bob, nostr.GameGomoku, "", t0)
		s, err := match.Fold(g.ID, g.Events, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := exp.PGN(s); err == nil {
			t.Error("a PGN for gomoku")
		}
	})
	t.Run("nil", func(t *testing.T) {
		if _, err := exp.GameRecord(nil, end); err == nil {
			t.Error("a record for no state")
		}
	})
}

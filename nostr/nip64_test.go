package nostr_test

import (
	"errors"
	"strings"
	"testing"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
	"vesper/nostr/relay"
	"vesper/store"
)

const recordPGN = "[White \"Alice\"]\n[Black \"Bob\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n"

// foolsMate is a final chess match: mate at ply 4, both players signed.
func foolsMate() *testkit.Match {
	const t0 = 1_750_000_000
	m := testkit.NewMatch(testkit.Key("alice"), testkit.Key("bob"), nostr.GameChess, "", t0)
	m.Accept(t0 + 10)
	end := m.Play([]string{"f2f3", "e7e5", "g2g4", "d8h4"}, t0+20, 10)
	s, err := match.Fold(m.ID, m.Events, nil)
	if err != nil {
		panic(err)
	}
	r := nostr.Result{Result: match.Second, Reason: "checkmate", Plies: 4, FinalHash: s.FinalHash()}
	m.Result(m.A, r, end+10)
	m.Result(m.B, r, end+20)
	return m
}

func record(m *testkit.Match) nostr.GameRecord {
	return nostr.GameRecord{Match: m.ID, First: m.A.PublicKey(), Second: m.B.PublicKey(),
		PGN: recordPGN, Alt: "Chess game (PGN): Alice (White) vs Bob (Black), 0-1"}
}

// TestNIP64RoundTrip: kind 64 with the PGN as content (NIP-64), an alt tag
// (NIP-31), the challenge as an e tag with its author (NIP-01) and the
// players as p tags; signed, it verifies and parses back.
func TestNIP64RoundTrip(t *testing.T) {
	m := foolsMate()
	want := record(m)
	ev := testkit.Sign(testkit.Key("house"), nostr.NewGameRecord(want, 1_750_000_500))
	got, err := nostr.ParseAndVerify(nostr.MarshalEvent(ev))
	if err != nil {
		t.Fatal(err)
	}
	if got.Kind != 64 || got.Content != recordPGN {
		t.Fatalf("kind %d, content %q", got.Kind, got.Content)
	}
	wantTags := nostr.Tags{
		{"alt", want.Alt},
		{"e", m.ID, "", m.A.PublicKey()},
		{"p", m.A.PublicKey()},
		{"p", m.B.PublicKey()},
	}
	if len(got.Tags) != len(wantTags) {
		t.Fatalf("tags %v, want %v", got.Tags, wantTags)
	}
	for i := range wantTags {
		if strings.Join(got.Tags[i], "\x00") != strings.Join(wantTags[i], "\x00") {
			t.Errorf("tag %d = %q, want %q", i, got.Tags[i], wantTags[i])
		}
	}
	rec, err := nostr.ParseGameRecord(got)
	if err != nil {
		t.Fatal(err)
	}
	if rec != want {
		t.Fatalf("parsed %+v, want %+v", rec, want)
	}
}

func TestNIP64ParseRejects(t *testing.T) {
	m := foolsMate()
	hex := func(c string) string { return strings.Repeat(c, 64) }
	build := func(edit func(ev *nostr.Event)) *nostr.Event {
		ev := nostr.NewGameRecord(record(m), 1_750_000_500)
		edit(ev)
		return ev
	}
	for _, c := range []struct {
		name string
		ev   *nostr.Event
		tag  string // "" for an error that is not a *TagError
	}{
		{"nil", nil, ""},
		{"kind 1", build(func(ev *nostr.Event) { ev.Kind = 1 }), ""},
		{"no PGN", build(func(ev *nostr.Event) { ev.Content = "" }), ""},
		{"no e tag", build(func(ev *nostr.Event) {
			ev.Tags = ev.Tags[:1:1]
			ev.Tags = append(ev.Tags, gn.Tag{"p", hex("a")}, gn.Tag{"p", hex("b")})
		}), "e"},
		{"two e tags", build(func(ev *nostr.Event) { ev.Tags = append(ev.Tags, gn.Tag{"e", hex("c")}) }), "e"},
		{"e tag without value", build(func(ev *nostr.Event) { ev.Tags[1] = gn.Tag{"e"} }), "e"},
		{"e tag not hex", build(func(ev *nostr.Event) { ev.Tags[1] = gn.Tag{"e", strings.ToUpper(m.ID)} }), "e"},
		{"one p tag", build(func(ev *nostr.Event) { ev.Tags = ev.Tags[:3] }), "p"},
		{"three p tags", build(func(ev *nostr.Event) { ev.Tags = append(ev.Tags, gn.Tag{"p", hex("c")}) }), "p"},
		{"p tag not hex", build(func(ev *nostr.Event) { ev.Tags[3] = gn.Tag{"p", "npub1xyz"} }), "p"},
		{"one player twice", build(func(ev *nostr.Event) { ev.Tags[3] = gn.Tag{"p", m.A.PublicKey()} }), "p"},
		{"two alt tags", build(func(ev *nostr.Event) { ev.Tags = append(ev.Tags, gn.Tag{"alt", "x"}) }), "alt"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := nostr.ParseGameRecord(c.ev)
			if err == nil {
				t.Fatal("no error")
			}
			var te *nostr.TagError
			if got := errors.As(err, &te); got != (c.tag != "") || got && te.Tag != c.tag {
				t.Fatalf("error %v (%T), want a tag error on %q", err, err, c.tag)
			}
		})
	}
	// No alt tag is allowed: NIP-31 makes it a recommendation.
	ev := build(func(ev *nostr.Event) { ev.Tags = ev.Tags[1:] })
	if rec, err := nostr.ParseGameRecord(ev); err != nil || rec.Alt != "" {
		t.Fatalf("without alt: %+v, %v", rec, err)
	}
}

// TestNIP64NeverAGameEvent: a record is not an event of its match
// (PROTOCOL.md section 2: the events of a match are its challenge and
// kinds 4421-4426 with a g tag naming it). Not vesper's record, nor a
// foreign one that carries a g tag: the kind is not a game kind, the store
// files it under no match, the subscriptions do not ask for it, and the
// fold of the match is the same with it as without it.
func TestNIP64NeverAGameEvent(t *testing.T) {
	m := foolsMate()
	own := testkit.Sign(testkit.Key("house"), nostr.NewGameRecord(record(m), 1_750_000_500))
	withG := nostr.NewGameRecord(record(m), 1_750_000_501)
	withG.Tags = append(withG.Tags, gn.Tag{"g", m.ID}, gn.Tag{"ply", "5"})
	withG.Content = "e2e4"
	testkit.Sign(m.A, withG)

	if nostr.IsMatchKind(nostr.KindGameRecord) {
		t.Error("IsMatchKind(64) is true")
	}
	for _, k := range nostr.GameKinds() {
		if k == nostr.KindGameRecord {
			t.Error("GameKinds lists 64")
		}
	}
	before, err := match.Fold(m.ID, m.Events, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !before.Final {
		t.Fatal("the test match is not final")
	}
	for name, rec := range map[string]*nostr.Event{"own record": own, "record with a g tag": withG} {
		t.Run(name, func(t *testing.T) {
			if got := store.MatchesOf(rec); got != nil {
				t.Errorf("store.MatchesOf = %v, want none", got)
			}
			for _, f := range relay.MatchFilters(m.ID) {
				if f.Matches(rec) {
					t.Errorf("the match's filter %v asks for the record", f)
				}
			}
			after, err := match.Fold(m.ID, append(append([]*nostr.Event{}, m.Events...), rec), nil)
			if err != nil {
				t.Fatal(err)
			}
			now := int64(1_750_001_000)
			if a, b := string(match.MarshalLine(after.Summary(now))), string(match.MarshalLine(before.Summary(now))); a != b {
				t.Errorf("the fold changed:\n%s\nwant\n%s", a, b)
			}
			if len(after.Events) != len(before.Events) {
				t.Errorf("the fold holds %d events, want %d", len(after.Events), len(before.Events))
			}
		})
	}
}

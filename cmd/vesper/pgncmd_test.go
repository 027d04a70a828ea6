package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
	"vesper/relayd"
	"vesper/site"
	"vesper/store"
)

// pgnFixture is a store with two final chess matches (so the ratings at
// each differ from the start), one still being played, and a gomoku match;
// the house's profile is only in its outbox, and the names carry a PGN
// string's escapes.
type pgnFixture struct {
	data                        string
	final, rematch, active, gom *testkit.Match
}

func newPGNFixture(t *testing.T) pgnFixture {
	t.Helper()
	ctx := context.Background()
	house, alice, bob := testkit.Key("house"), testkit.Key("alice"), testkit.Key("bob")
	t0 := time.Now().Unix() - 7200
	f := pgnFixture{data: t.TempDir()}
	st, err := store.Open(filepath.Join(f.data, "vesper.db"))
	if err != nil {
		t.Fatal(err)
	}
	put := func(m *testkit.Match) {
		for _, ev := range m.Events {
			if _, err := st.PutEvent(ctx, ev, nostr.MarshalEvent(ev), "", int64(ev.CreatedAt)+1); err != nil {
				t.Fatal(err)
			}
		}
	}
	sign := func(m *testkit.Match, reason string, at int64) {
		s, err := match.Fold(m.ID, m.Events, nil)
		if err != nil || !s.Over {
			t.Fatalf("fixture match is not over: %v", err)
		}
		r := nostr.Result{Result: s.Result, Reason: reason, Plies: s.Plies(), FinalHash: s.FinalHash()}
		m.Result(m.A, r, at)
		m.Result(m.B, r, at+10)
	}
	f.final = testkit.NewMatch(alice, house, nostr.GameChess, "", t0)
	f.final.Accept(t0 + 10)
	end := f.final.Play([]string{"f2f3", "e7e5", "g2g4", "d8h4"}, t0+20, 10)
	sign(f.final, "checkmate", end+10)
	f.rematch = testkit.NewMatch(bob, alice, nostr.GameChess, "", t0+100)
	f.rematch.Accept(t0 + 110)
	end = f.rematch.Play([]string{"e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6", "h5f7"}, t0+120, 10)
	sign(f.rematch, "checkmate", end+10)
	f.active = testkit.NewMatch(bob, house, nostr.GameChess, "", t0+200)
	f.active.Accept(t0 + 210)
	f.active.Play([]string{"e2e4", "c7c5", "g1f3"}, t0+220, 10)
	f.gom = testkit.NewMatch(alice, bob, nostr.GameGomoku, "", t0+300)
	f.gom.Accept(t0 + 310)
	for _, m := range []*testkit.Match{f.final, f.rematch, f.active, f.gom} {
		put(m)
	}
	for k, content := range map[nostr.SecretKey]string{
		alice: `{"name":"Alice \"the\" \\o/ bot","bot":true}`,
		bob:   `{"name":"[Bob] ¯\\_(ツ)_/¯","bot":true}`,
	} {
		if err := st.PutProfile(ctx, testkit.Sign(k, &nostr.Event{Kind: nostr.KindProfile, CreatedAt: nostr.Timestamp(t0), Content: content})); err != nil {
			t.Fatal(err)
		}
	}
	hp := testkit.Sign(house, &nostr.Event{Kind: nostr.KindProfile, CreatedAt: nostr.Timestamp(t0), Content: `{"name":"vesper \"house\"","bot":true}`})
	if _, _, err := st.OutboxAdd(ctx, "profile:"+house.PublicKey()+":v1", hp); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestPGNEqualsTheSitesFile is issue 19: `vesper pgn MATCH` prints the
// site's m/<id>.pgn byte for byte (the content of the match's NIP-64
// record), with the players' names, npubs, ratings and Termination;
// --json wraps it as {"match", "pgn"}.
func TestPGNEqualsTheSitesFile(t *testing.T) {
	f := newPGNFixture(t)
	out := filepath.Join(t.TempDir(), "site")
	if r := vesper(t, nil, nil, "site", "build", "--data", f.data, "--out", out); r.code != 0 {
		t.Fatalf("site build: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for name, m := range map[string]*testkit.Match{"final": f.final, "rematch": f.rematch, "active": f.active} {
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(out, "m", m.ID+".pgn"))
			if err != nil {
				t.Fatal(err)
			}
			r := vesper(t, nil, nil, "pgn", "--data", f.data, m.ID)
			if r.code != 0 || r.stdout != string(want) {
				t.Fatalf("exit %d, stderr %q, got\n%s\nwant (the site's file)\n%s", r.code, r.stderr, r.stdout, want)
			}
			r = vesper(t, nil, nil, "pgn", "--json", "--data", f.data, nostr.Nevent(m.ID, m.A.PublicKey(), nil))
			var got struct{ Match, PGN string }
			if r.code != 0 || json.Unmarshal([]byte(r.stdout), &got) != nil || got.Match != m.ID || got.PGN != string(want) {
				t.Fatalf("--json: exit %d, %q %q", r.code, r.stdout, r.stderr)
			}
		})
	}
	r := vesper(t, nil, nil, "pgn", "--data", f.data, f.final.ID)
	for _, want := range []string{
		`[White "Alice 'the' /o/ bot"]`, `[Black "vesper 'house'"]`, `[Result "0-1"]`,
		`[WhiteNpub "` + nostr.Npub(f.final.A.PublicKey()) + `"]`, `[BlackNpub "` + nostr.Npub(f.final.B.PublicKey()) + `"]`,
		`[WhiteElo "1500"]`, `[Termination "normal"]`, `[Final "signatures"]`, "1. f3 e5 2. g4 Qh4# 0-1\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the PGN lacks %s:\n%s", want, r.stdout)
		}
	}
	if !strings.Contains(vesper(t, nil, nil, "pgn", "--data", f.data, f.rematch.ID).stdout, `[BlackElo "`) ||
		strings.Contains(vesper(t, nil, nil, "pgn", "--data", f.data, f.rematch.ID).stdout, `[BlackElo "1500"]`) {
		t.Error("the rematch does not show Alice's rating after her first game")
	}
}

func TestPGNErrors(t *testing.T) {
	f := newPGNFixture(t)
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"gomoku", []string{f.gom.ID}, exitFailure, "only chess has a PGN"},
		{"no such match", []string{strings.Repeat("ab", 32)}, exitNotFound, "no match"},
		{"not a match id", []string{"xyz"}, exitUsage, "MATCH"},
		{"no MATCH", nil, exitUsage, "MATCH"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := vesper(t, nil, nil, append([]string{"pgn", "--data", f.data}, c.args...)...)
			if r.code != c.code || !strings.Contains(r.stderr, c.want) || r.stdout != "" {
				t.Fatalf("exit %d (want %d), stdout %q, stderr %q (want %q)", r.code, c.code, r.stdout, r.stderr, c.want)
			}
		})
	}
}

// TestPGNFromRelays: with --relays and no --data the match is read from
// the relays, as `vesper status` reads it; the PGN is the site's for a
// build that knows no profiles and no ratings.
func TestPGNFromRelays(t *testing.T) {
	f := newPGNFixture(t)
	r, err := relayd.Start(context.Background(), relayd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	for _, ev := range f.final.Events {
		if err := r.Inject(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
	s, err := match.Fold(f.final.ID, f.final.Events, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := site.PGN(site.Input{}, s)
	if err != nil {
		t.Fatal(err)
	}
	got := vesper(t, nil, nil, "pgn", "--relays", r.URL(), f.final.ID)
	if got.code != 0 || got.stdout != want {
		t.Fatalf("exit %d, stderr %q, got\n%s\nwant\n%s", got.code, got.stderr, got.stdout, want)
	}
	if !strings.Contains(want, `[WhiteElo "-"]`) {
		t.Errorf("a PGN from relays shows a rating:\n%s", want)
	}
	missing := vesper(t, nil, nil, "pgn", "--relays", r.URL(), f.active.ID)
	if missing.code != exitNotFound {
		t.Errorf("a match the relay lacks: exit %d, %q", missing.code, missing.stderr)
	}
}

package daemon

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/arbiter"
	"vesper/conformance/chessjs"
	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
	"vesper/nostr/relay"
	"vesper/relayd"
)

// TestGameRecordsOncePerFinalMatch (issue 19, NIP-64): the house records
// one kind 64 game record per final chess match, none for gomoku or a
// game in progress, its content the site's PGN of the match byte for
// byte, loadable by chess.js 1.4.0; a restart records none again. The
// players are bots (issue 30 item 8: records only for listed players).
func TestGameRecordsOncePerFinalMatch(t *testing.T) {
	rl := startRelays(t, 1, relayd.Options{})[0]
	st := openStore(t)
	house, alice, bob := testkit.Key("house"), testkit.Key("alice"), testkit.Key("bob")
	siteDir := filepath.Join(t.TempDir(), "site")
	cfg := Config{Store: st, Key: house, Relays: []string{rl.URL()}, Arbiter: arbiter.Config{}, Log: discardLog(),
		Run: Options{Tick: 50 * time.Millisecond, FirstSyncWait: testkit.Scale(time.Second), SiteDir: siteDir, SiteEvery: 100 * time.Millisecond}}

	now := time.Now().Unix() - 100
	mate := testkit.NewMatch(alice, bob, "chess", "", now)
	mate.Accept(now + 1)
	last := mate.Play(demoGame, now+2, 1)
	s, err := match.Fold(mate.ID, mate.Events, nil)
	if err != nil || !s.Over {
		t.Fatalf("scholar's mate did not end: %v", err)
	}
	mate.Result(alice, s.Computed(), last+1)
	mate.Result(bob, s.Computed(), last+2)
	live := testkit.NewMatch(bob, alice, "chess", "", now)
	live.Accept(now + 1)
	live.Move(bob, 1, "e2e4", now+2)
	ctx := context.Background()
	bots := []*nostr.Event{botProfile(alice, now), botProfile(bob, now)}
	for _, ev := range append(append(bots, mate.Events...), live.Events...) {
		if ok := relay.Accepted(relay.Publish(ctx, []string{rl.URL()}, ev, testkit.Scale(5*time.Second))); len(ok) == 0 {
			t.Fatalf("the relay refused %s", ev.ID)
		}
	}
	records := func() []*nostr.Event {
		got, err := relay.Fetch(ctx, []string{rl.URL()}, []gn.Filter{{Kinds: []int{nostr.KindGameRecord}}}, testkit.Scale(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		var out []*nostr.Event
		for _, r := range got {
			out = append(out, r.Event)
		}
		return out
	}
	d, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- d.Run(ctx) }()
	waitFor(t, "the game record on the relay", 30*time.Second, func() bool { return len(records()) > 0 })
	d.Close()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	got := records()
	if len(got) != 1 {
		t.Fatalf("%d game records, want 1 (the final chess match's)", len(got))
	}
	rec, err := nostr.ParseGameRecord(got[0])
	if err != nil || rec.Match != mate.ID || got[0].PubKey != house.PublicKey() {
		t.Fatalf("record %+v (%v), by %s; want the match %s by the house", rec, err, got[0].PubKey, mate.ID)
	}
	page, err := os.ReadFile(filepath.Join(siteDir, "m", mate.ID+".pgn"))
	if err != nil || string(page) != got[0].Content {
		t.Errorf("the record's PGN differs from the site's (%v):\n%s\n---\n%s", err, got[0].Content, page)
	}
	loaded, err := chessjs.LoadPGNs(ctx, map[string]string{"record": got[0].Content})
	switch {
	case errors.Is(err, chessjs.ErrNotInstalled):
		t.Log("chess.js not installed: the load check is skipped (.ci/run installs it)")
	case err != nil:
		t.Fatal(err)
	case !loaded["record"].OK || len(loaded["record"].Moves) != len(demoGame):
		t.Errorf("chess.js loads the record as %+v", loaded["record"])
	}

	// A restart (the outbox remembers) records nothing again.
	d = running(t, cfg)
	waitFor(t, "two records passes after the restart", 30*time.Second, func() bool { return d.recordPasses.Load() >= 2 })
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(records()); n != 1 {
		t.Errorf("%d game records after a restart, want 1", n)
	}
	if due, err := st.FinalWithoutDuty(ctx, nostr.GameChess, recordDuty(""), 10); err != nil || len(due) != 0 {
		t.Errorf("records still due: %v %v", due, err)
	}
}

// botProfile is k's kind 0 declaring a bot (NIP-24): a player the site
// lists.
func botProfile(k nostr.SecretKey, at int64) *nostr.Event {
	return testkit.Sign(k, &nostr.Event{Kind: nostr.KindProfile, CreatedAt: nostr.Timestamp(at), Content: `{"name":"bot","bot":true}`})
}

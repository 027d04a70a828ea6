package daemon

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vesper/arbiter"
	"vesper/internal/testkit"
	"vesper/nostr"
	"vesper/nostr/relay"
	"vesper/relayd"
	"vesper/site"
	"vesper/store"
)

// TestBackfillFetchesNamesOfFinalMatches (issue 26, item 1): a daemon
// started on relays that already hold only final matches fetches every
// player's profile, so the site names them all and lists their games
// (bots only, the default): the first backfill's matches are final, and
// none stays in memory to say who played.
func TestBackfillFetchesNamesOfFinalMatches(t *testing.T) {
	rl, st, siteDir, cfg := siteDaemon(t)
	ctx := context.Background()
	names, ids := publishFinalMatches(t, rl.URL())
	d := running(t, cfg)
	waitFor(t, "every player's profile stored", testkit.Scale(20*time.Second), func() bool {
		for _, k := range names {
			if _, ok, err := st.Profile(ctx, k.PublicKey()); err != nil || !ok {
				return false
			}
		}
		return true
	})
	if len(d.snapshot()) != 0 {
		t.Fatalf("%d matches kept in memory; the test wants only final ones", len(d.snapshot()))
	}
	// The profiles are stored: the next build to start shows every name
	// (one that started before them may be running: it is let finish; a
	// periodic one that starts meanwhile skips ours and does the same).
	<-siteOf(d).wait()
	d.buildSiteLogged(ctx, d.opts)
	<-siteOf(d).wait()
	want := map[string][]string{"index.html": nil, "ratings/chess.html": nil, "matches.json": ids}
	for name := range names {
		want["index.html"] = append(want["index.html"], name)
		want["ratings/chess.html"] = append(want["ratings/chess.html"], name)
	}
	for rel, has := range want {
		page, err := os.ReadFile(filepath.Join(siteDir, rel))
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range has {
			if !strings.Contains(string(page), w) {
				t.Errorf("%s lacks %s after a build", rel, w)
			}
		}
	}
}

// publishFinalMatches publishes two final matches between four bots, and
// the bots' profiles, and returns the bots by name and the matches' ids.
func publishFinalMatches(t *testing.T, url string) (map[string]nostr.SecretKey, []string) {
	t.Helper()
	now := time.Now().Unix() - 1000
	names := map[string]nostr.SecretKey{}
	var evs []*nostr.Event
	var ids []string
	for i, pair := range [][2]string{{"alice", "bob"}, {"carol", "dave"}} {
		a, b := testkit.Key(pair[0]), testkit.Key(pair[1])
		m := finishedChess(t, a, b, now+int64(i)*100)
		evs = append(evs, m.Events...)
		ids = append(ids, m.ID)
		for j, k := range []nostr.SecretKey{a, b} {
			name := "Backfilled" + pair[j]
			names[name] = k
			evs = append(evs, testkit.Sign(k, &nostr.Event{Kind: nostr.KindProfile, CreatedAt: nostr.Timestamp(now),
				Content: `{"name":"` + name + `","bot":true}`}))
		}
	}
	for _, ev := range evs {
		if ok := relay.Accepted(relay.Publish(context.Background(), []string{url}, ev, testkit.Scale(30*time.Second))); len(ok) == 0 {
			t.Fatalf("the relay refused %s", ev.ID)
		}
	}
	return names, ids
}

// TestRecordWaitsForNames (issue 26, item 1): a final match's NIP-64
// record waits for its players' profiles, and is signed with their names
// once they come; a player with no profile anywhere holds it back no
// longer than recordNameWait after the result went final.
func TestRecordWaitsForNames(t *testing.T) {
	ctx := context.Background()
	n := testNode(t, testkit.Key("house"))
	n.opts.ListAll = true // every account listed: the names are the only wait
	alice, bob := testkit.Key("alice"), testkit.Key("bob")
	m := finishedChess(t, alice, bob, tNow-200)
	deliver(t, n, "ws://honest", m.Events...)
	final := int64(m.Events[len(m.Events)-1].CreatedAt)
	pass := func(now int64) (int, string) {
		t.Helper()
		n.clock = func() int64 { return now }
		in, err := siteInput(ctx, n.st, n.self, true, now)
		if err != nil {
			t.Fatal(err)
		}
		exp, err := site.NewExporter(in)
		if err != nil {
			t.Fatal(err)
		}
		k, err := n.records(ctx, func() (*site.Exporter, error) { return exp, nil }, nil)
		if err != nil {
			t.Fatal(err)
		}
		item, ok, err := n.st.OutboxGet(ctx, recordDuty(m.ID))
		if err != nil || !ok {
			return k, ""
		}
		return k, item.Event.Content
	}
	if k, _ := pass(final + 60); k != 0 {
		t.Fatalf("a record signed a minute after the result with no profile known")
	}
	deliver(t, n, "ws://honest", testkit.Sign(alice, &nostr.Event{Kind: nostr.KindProfile, CreatedAt: nostr.Timestamp(tNow - 300), Content: `{"name":"Alicebot"}`}))
	if k, _ := pass(final + 120); k != 0 {
		t.Fatalf("a record signed with one of two profiles known")
	}
	if k, pgn := pass(final + recordNameWait); k != 1 || !strings.Contains(pgn, `[White "Alicebot"]`) {
		t.Fatalf("after recordNameWait: %d records, PGN %q; want one, naming the player known", k, pgn)
	}
}

// siteDaemon is a house daemon's configuration on one fresh relay and
// store, building its site into siteDir every 100 ms.
func siteDaemon(t *testing.T) (rl *relayd.Relay, st *store.Store, siteDir string, cfg Config) {
	t.Helper()
	rl = startRelays(t, 1, relayd.Options{})[0]
	st = openStore(t)
	siteDir = filepath.Join(t.TempDir(), "site")
	cfg = Config{Store: st, Key: testkit.Key("house"), Relays: []string{rl.URL()}, Arbiter: arbiter.Config{}, Log: discardLog(),
		Run: Options{Tick: 50 * time.Millisecond, FirstSyncWait: time.Second, SiteDir: siteDir, SiteEvery: 100 * time.Millisecond}}
	return rl, st, siteDir, cfg
}

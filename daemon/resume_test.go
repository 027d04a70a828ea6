package daemon

import (
	"context"
	"database/sql"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"vesper/arbiter"
	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
	"vesper/nostr/relay"
	"vesper/relayd"
	"vesper/store"
)

// resumeWorld is a store as a daemon leaves it: a final match, a game in
// progress, an expired challenge, a match whose events a crash stored
// without their summary, and a final match whose summary an older fold
// wrote.
type resumeWorld struct {
	final, live, expired, crashed, old *testkit.Match
}

func newResumeWorld(t *testing.T, st *store.Store, now int64) resumeWorld {
	t.Helper()
	ctx := context.Background()
	alice, bob := testkit.Key("alice"), testkit.Key("bob")
	w := resumeWorld{}
	finished := func(at int64) *testkit.Match {
		m := testkit.NewMatch(alice, bob, "chess", "", at)
		m.Accept(at + 1)
		last := m.Play(demoGame, at+2, 1)
		s, err := match.Fold(m.ID, m.Events, nil)
		if err != nil || !s.Over {
			t.Fatalf("scholar's mate did not end: %v", err)
		}
		m.Result(alice, s.Computed(), last+1)
		m.Result(bob, s.Computed(), last+2)
		return m
	}
	w.final = finished(now - 3000)
	w.old = finished(now - 2000)
	w.live = testkit.NewMatch(alice, bob, "chess", "", now-100)
	w.live.Accept(now - 99)
	w.live.Move(alice, 1, "e2e4", now-98)
	w.expired = testkit.NewMatch(bob, alice, "gomoku", "", now-match.ChallengeExpiry-100)
	w.crashed = testkit.NewMatch(bob, alice, "chess", "", now-50)
	w.crashed.Accept(now - 49)

	// The first four went through a daemon; the crashed one only reached
	// the store.
	n := newNode(st, nostr.SecretKey{}, nil, arbiter.Config{}, discardLog())
	n.clock = func() int64 { return now - 10 }
	for _, m := range []*testkit.Match{w.final, w.old, w.live, w.expired} {
		deliver(t, n, "ws://before", m.Events...)
	}
	var in []store.Incoming
	for _, ev := range w.crashed.Events {
		in = append(in, store.Incoming{Event: ev, Raw: nostr.MarshalEvent(ev), Relay: "ws://before", SeenAt: now - 10})
	}
	if _, err := st.PutEvents(ctx, in); err != nil {
		t.Fatal(err)
	}
	// An older fold wrote w.old's summary.
	db, err := sql.Open("sqlite", st.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE summaries SET fold_version = ?, json = '{"stale":true}' WHERE match = ?`, match.FoldVersion-1, w.old.ID); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestResumeFoldsOnlyOpenAndDirty: a start folds the game in progress and
// the match a crash left without its summary, and nothing else; the
// final and expired matches stay in the store, not in memory.
func TestResumeFoldsOnlyOpenAndDirty(t *testing.T) {
	st := openStore(t)
	now := time.Now().Unix()
	w := newResumeWorld(t, st, now)
	n := newNode(st, nostr.SecretKey{}, nil, arbiter.Config{}, discardLog())
	n.clock = func() int64 { return now }
	r, err := n.resume(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.folded != 2 || r.stale != 1 {
		t.Errorf("resume folded %d matches and found %d stale summaries, want 2 and 1", r.folded, r.stale)
	}
	for _, c := range []struct {
		name string
		m    *testkit.Match
		kept bool
	}{{"final", w.final, false}, {"old", w.old, false}, {"live", w.live, true}, {"expired", w.expired, false}, {"crashed", w.crashed, true}} {
		if got := n.state(c.m.ID) != nil; got != c.kept {
			t.Errorf("%s: kept %v, want %v", c.name, got, c.kept)
		}
	}
	set, err := st.ResumeSet(context.Background(), match.FoldVersion, store.Dormancy{})
	if err != nil || len(set.Dirty) != 0 {
		t.Errorf("dirty after resume: %v %v", set.Dirty, err)
	}
}

// TestRunResumesAndUpgrades drives Run with a fixed clock on an embedded
// relay: the start folds only the open matches, the summary of an older
// fold is re-folded behind it, a new move of the live game is ingested,
// and a late event for a final match re-folds it from the store without
// keeping it in memory.
func TestRunResumesAndUpgrades(t *testing.T) {
	st := openStore(t)
	now := time.Now().Unix()
	w := newResumeWorld(t, st, now)
	rl := startRelays(t, 1, relayd.Options{})[0]
	var clock atomic.Int64
	clock.Store(now)
	d := running(t, Config{Store: st, Relays: []string{rl.URL()}, Log: discardLog(),
		Clock: clock.Load, Run: Options{Tick: 50 * time.Millisecond, FirstSyncWait: testkit.Scale(time.Second)}})
	ctx := context.Background()

	waitFor(t, "the stale summary re-folded", time.Minute, func() bool {
		sum, ok, err := st.Summary(ctx, w.old.ID)
		return err == nil && ok && sum.FoldVersion == match.FoldVersion && sum.Final
	})
	clock.Store(now + 5)
	mv := testkit.Sign(testkit.Key("bob"), nostr.NewMove(w.live.ID, 2, "e7e5", now+5))
	late := testkit.Sign(testkit.Key("mallory"), nostr.NewMove(w.final.ID, 8, "a2a3", now+5))
	for _, ev := range []*nostr.Event{mv, late} {
		if ok := relay.Accepted(relay.Publish(ctx, []string{rl.URL()}, ev, testkit.Scale(5*time.Second))); len(ok) == 0 {
			t.Fatalf("the relay refused %s", ev.ID)
		}
	}
	waitFor(t, "the live move ingested", time.Minute, func() bool {
		s := d.State(w.live.ID)
		return s != nil && s.Plies() == 2
	})
	waitFor(t, "the late event in the final match's summary", time.Minute, func() bool {
		var sum match.Summary
		raw, ok, err := st.Summary(ctx, w.final.ID)
		return err == nil && ok && json.Unmarshal(raw.JSON, &sum) == nil && len(sum.Ignored) == 1
	})
	if d.State(w.final.ID) != nil || d.State(w.old.ID) != nil || d.State(w.expired.ID) != nil {
		t.Error("a final or expired match is kept in memory")
	}
}

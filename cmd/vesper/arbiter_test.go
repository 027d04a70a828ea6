package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
	"vesper/nostr/relay"
	"vesper/relayd"
	"vesper/store"
)

func writeKey(t *testing.T, k nostr.SecretKey) string {
	p := filepath.Join(t.TempDir(), "house.key")
	if err := os.WriteFile(p, []byte(k.Nsec()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// authored lists the events of kind by author on url.
func authored(t *testing.T, url string, kind int, author string) []*nostr.Event {
	t.Helper()
	got, err := relay.Fetch(context.Background(), []string{url}, []gn.Filter{{Kinds: []int{kind}, Authors: []string{author}}}, testkit.Scale(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var out []*nostr.Event
	for _, r := range got {
		out = append(out, r.Event)
	}
	return out
}

func forMatch(evs []*nostr.Event, id string) []*nostr.Event {
	var out []*nostr.Event
	for _, ev := range evs {
		if nostr.HasMatchTag(ev, id) {
			out = append(out, ev)
		}
	}
	return out
}

// stalled is a match whose second player's clock ran out long ago.
func stalled(a, b nostr.SecretKey, ago int64) *testkit.Match {
	t := time.Now().Unix() - ago
	m := testkit.NewMatch(a, b, "gomoku", "", t)
	m.Accept(t + 10)
	m.Move(a, 1, "h8", t+20)
	return m
}

// TestArbiterDutiesOnRelays: one daemon pass over four matches: a request
// 61 minutes old gets exactly one ruling; a match that already has a correct
// ruling from another key gets none; one whose clock has not run out gets
// none; in its own game with the opponent's clock run out it claims once.
func TestArbiterDutiesOnRelays(t *testing.T) {
	rs := startRelays(t, 1, relayd.Options{})
	url := rs[0].URL()
	house, alice, bob, judge := testkit.Key("house"), testkit.Key("alice"), testkit.Key("bob"), testkit.Key("judge")
	now := time.Now().Unix()

	ruled := stalled(alice, bob, 3*86400)
	ruled.Request(alice, now-61*60)

	already := stalled(alice, bob, 3*86400+5)
	already.Request(bob, now-3*3600)
	stAlready, _ := match.Fold(already.ID, already.Events, nil)
	want, _ := stAlready.CorrectRuling(now - 2*3600)
	already.Ruling(judge, want, now-2*3600)

	running := testkit.NewMatch(alice, bob, "gomoku", "", now-7200)
	running.Accept(now - 7100)
	running.Move(alice, 1, "h8", now-7000)
	// Signatures disagree, so the request is valid; but no ruling can be
	// correct while bob's clock runs.
	stRun, _ := match.Fold(running.ID, running.Events, nil)
	running.Result(alice, nostr.Result{Result: "first", Reason: "x", Plies: 1, FinalHash: stRun.FinalHash()}, now-6900)
	running.Result(bob, nostr.Result{Result: "second", Reason: "x", Plies: 1, FinalHash: stRun.FinalHash()}, now-6800)
	running.Request(bob, now-6000)

	own := stalled(house, alice, 2*86400)

	for _, m := range []*testkit.Match{ruled, already, running, own} {
		publishIndependent(t, url, m.Events...)
	}
	data := t.TempDir()
	d := startDaemon(t, data, url, "--key", writeKey(t, house), "--no-play=false")
	waitFor(t, "the ruling and the claim", 30*time.Second, func() bool {
		return len(forMatch(authored(t, url, nostr.KindRuling, house.PublicKey()), ruled.ID)) > 0 &&
			len(forMatch(authored(t, url, nostr.KindResult, house.PublicKey()), own.ID)) > 0
	})
	d.stop(t)

	rulings := authored(t, url, nostr.KindRuling, house.PublicKey())
	if n := len(forMatch(rulings, ruled.ID)); n != 1 {
		t.Errorf("stalled match: %d rulings, want 1", n)
	}
	if n := len(forMatch(rulings, already.ID)); n != 0 {
		t.Errorf("already ruled: %d rulings, want 0", n)
	}
	if n := len(forMatch(rulings, running.ID)); n != 0 {
		t.Errorf("clock running: %d rulings, want 0", n)
	}
	claims := forMatch(authored(t, url, nostr.KindResult, house.PublicKey()), own.ID)
	if len(claims) != 1 {
		t.Fatalf("own game: %d claims, want 1", len(claims))
	}
	// `vesper verify` finds the claimed game final, and the ruled one too.
	for _, c := range []struct {
		m  *testkit.Match
		ev *nostr.Event
		by match.FinalBy
	}{{own, claims[0], match.FinalByTimeout}, {ruled, forMatch(rulings, ruled.ID)[0], match.FinalByRuling}} {
		st, err := match.Fold(c.m.ID, append(append([]*nostr.Event{}, c.m.Events...), c.ev), nil)
		if err != nil || !st.Final || st.FinalBy != c.by {
			t.Fatalf("match %s not final by %s: %v %v", c.m.ID, c.by, err, st.Ignored)
		}
	}
}

// TestArbiterOutboxSurvivesKill9: the daemon records a duty, cannot publish
// it (the relay refuses writes), is killed with SIGKILL; after a restart
// the same event is published, and only it.
func TestArbiterOutboxSurvivesKill9(t *testing.T) {
	rs := startRelays(t, 1, relayd.Options{})
	url := rs[0].URL()
	house, alice, bob := testkit.Key("house"), testkit.Key("alice"), testkit.Key("bob")
	m := stalled(alice, bob, 3*86400)
	m.Request(bob, time.Now().Unix()-2*3600)
	publishIndependent(t, url, m.Events...)
	rs[0].SetRejectWrites("blocked: stalled for the test")

	data := t.TempDir()
	key := writeKey(t, house)
	d := startDaemon(t, data, url, "--key", key)
	var recorded store.OutboxItem
	waitFor(t, "the duty in the outbox", 30*time.Second, func() bool {
		st, err := store.OpenReadOnly(filepath.Join(data, "vesper.db"))
		if err != nil {
			return false
		}
		defer st.Close()
		items, err := st.Outbox(context.Background())
		if err != nil {
			return false
		}
		for _, it := range items {
			if it.Event.Kind == nostr.KindRuling {
				recorded = it
			}
		}
		return recorded.Attempts > 0
	})
	d.kill()
	if got := authored(t, url, nostr.KindRuling, house.PublicKey()); len(got) != 0 {
		t.Fatalf("published while refused: %d", len(got))
	}
	rs[0].SetRejectWrites("")
	d = startDaemon(t, data, url, "--key", key)
	waitFor(t, "the ruling", 30*time.Second, func() bool {
		return len(authored(t, url, nostr.KindRuling, house.PublicKey())) > 0
	})
	d.stop(t)
	got := authored(t, url, nostr.KindRuling, house.PublicKey())
	if len(got) != 1 || got[0].ID != recorded.Event.ID {
		st, _ := store.OpenReadOnly(filepath.Join(data, "vesper.db"))
		items, _ := st.Outbox(context.Background())
		for _, it := range items {
			t.Logf("outbox %s %s %v", it.Duty, it.Event.ID, it.SentTo)
		}
		t.Fatalf("rulings on the relay: %d %s (want exactly the recorded %s)", len(got), got[0].ID, recorded.Event.ID)
	}
}

// TestArbiterOnce: `vesper arbiter --once` fetches, rules and exits,
// printing what it did; a second run publishes nothing new.
func TestArbiterOnce(t *testing.T) {
	rs := startRelays(t, 1, relayd.Options{})
	url := rs[0].URL()
	house, alice, bob := testkit.Key("house"), testkit.Key("alice"), testkit.Key("bob")
	m := stalled(alice, bob, 3*86400)
	m.Request(alice, time.Now().Unix()-2*3600)
	publishIndependent(t, url, m.Events...)
	data, key := t.TempDir(), writeKey(t, house)
	for i, want := range []int{1, 0} {
		out, r := (&agentEnv{relay: rs[0]}).run(t, "arbiter", "--once", "--key", key, "--data", data, "--no-play")
		if r.code != 0 {
			t.Fatalf("run %d: exit %d %s", i, r.code, r.stderr)
		}
		if got := int(out["recorded"].(float64)); got != want {
			t.Fatalf("run %d: recorded %d duties, want %d (%v)", i, got, want, out)
		}
	}
	if got := forMatch(authored(t, url, nostr.KindRuling, house.PublicKey()), m.ID); len(got) != 1 {
		t.Fatalf("%d rulings, want 1", len(got))
	}
}

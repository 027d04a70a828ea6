package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"vesper/arbiter"
	"vesper/daemon"
	"vesper/internal/testkit"
	"vesper/nostr"
	"vesper/nostr/relay"
	"vesper/relayd"
	"vesper/store"
)

func TestInputCaps(t *testing.T) {
	dir := t.TempDir()
	k := testkit.Key("someone")
	private := filepath.Join(dir, "private.key")
	public := filepath.Join(dir, "public.key")
	os.WriteFile(private, []byte(k.Nsec()+"\n"), 0o600)
	os.WriteFile(public, []byte(k.Nsec()+"\n"), 0o644)
	os.Chmod(public, 0o644) // whatever the umask
	cases := []struct {
		name, key string
		code      int
		stderr    string
		noWarning bool
	}{
		{"private", private, 0, "", true},
		{"world readable", public, 0, "readable by every user", false},
		{"endless", "/dev/zero", exitKey, "larger than 4096 bytes", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := vesper(t, nil, nil, "whoami", "--key", c.key)
			if r.code != c.code || !strings.Contains(r.stderr, c.stderr) {
				t.Fatalf("exit %d stderr %q; want %d containing %q", r.code, r.stderr, c.code, c.stderr)
			}
			if c.noWarning && strings.Contains(r.stderr, "warning") {
				t.Fatalf("unexpected warning: %s", r.stderr)
			}
			if strings.Contains(r.stderr+r.stdout, k.Nsec()) || strings.Contains(r.stderr+r.stdout, k.Hex()) {
				t.Fatal("the secret key was printed")
			}
		})
	}
	good := goldenFiles(t)[0]
	r := vesper(t, nil, nil, "verify", "--json", "--max-bytes", "1000", good)
	if r.code != exitFailure || !strings.Contains(r.stderr, "larger than 1000 bytes") || !strings.Contains(r.stdout, `"file":`) {
		t.Fatalf("capped verify: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	r = vesper(t, []byte(strings.Repeat(" ", 5000)), nil, "verify", "--json", "--max-bytes", "1000", "-")
	if r.code != exitFailure || !strings.Contains(r.stderr, "larger than 1000 bytes") {
		t.Fatalf("capped stdin: exit %d stderr %q", r.code, r.stderr)
	}
	r = vesper(t, nil, nil, "verify", "--json", "--max-bytes", "4096", "/dev/zero")
	if r.code != exitFailure || !strings.Contains(r.stderr, "larger than 4096 bytes") {
		t.Fatalf("verify /dev/zero: exit %d stderr %q", r.code, r.stderr)
	}
	if r := vesper(t, nil, nil, "verify", "--json", good); r.code != 0 {
		t.Fatalf("a golden file under the default cap: exit %d %s", r.code, r.stderr)
	}
}

func TestPruneCommand(t *testing.T) {
	data := t.TempDir()
	st, err := store.Open(filepath.Join(data, "vesper.db"))
	if err != nil {
		t.Fatal(err)
	}
	now := nowUnix()
	var clock int64
	// No quotas: this test fills the store with junk on purpose.
	n, err := daemon.Open(daemon.Config{Store: st, Arbiter: arbiter.DefaultConfig(), Limits: &daemon.Limits{},
		Clock: func() int64 { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	alice, bob, junk := testkit.Key("alice"), testkit.Key("bob"), testkit.Key("junk")
	seenAt := func(at int64) { clock = at }
	deliver := func(t *testing.T, n *daemon.Daemon, url string, evs ...*nostr.Event) {
		t.Helper()
		batch := make([]relay.Received, 0, len(evs))
		for _, ev := range evs {
			batch = append(batch, relay.Received{Event: ev, Relay: url})
		}
		if err := n.Ingest(context.Background(), batch); err != nil {
			t.Fatal(err)
		}
	}

	seenAt(now - 60*86400)
	expired := testkit.NewMatch(alice, bob, "chess", "", now-50*86400)
	expired.Add(junk, nostr.NewRequest(expired.ID, "", now-50*86400+5))
	oldLive := testkit.NewMatch(alice, bob, "chess", "", now-50*86400+1)
	oldLive.Accept(now - 50*86400 + 10)
	invalid := testkit.Sign(junk, &nostr.Event{Kind: nostr.KindChallenge, CreatedAt: nostr.Timestamp(now - 50*86400), Content: `{"game":"go"}`, Tags: nostr.Tags{{"t", nostr.GamesTopic}}})
	deliver(t, n, "ws://r", append(append(expired.Events, oldLive.Events...), invalid)...)
	seenAt(now - 2*86400)
	ghost := fmt.Sprintf("%064x", 7)
	orphanOld := testkit.Sign(junk, nostr.NewMove(ghost, 1, "e2e4", now-2*86400))
	deliver(t, n, "ws://r", orphanOld)
	seenAt(now - 60)
	orphanNew := testkit.Sign(junk, nostr.NewMove(ghost, 2, "e7e5", now-60))
	deliver(t, n, "ws://r", orphanNew)
	st.Close()

	type out struct {
		DryRun    bool `json:"dry_run"`
		Invalid   int  `json:"invalid"`
		Expired   int  `json:"expired"`
		Orphans   int  `json:"orphan_matches"`
		Matches   int  `json:"matches"`
		Events    int  `json:"events"`
		Summaries int  `json:"summaries"`
	}
	want := out{Invalid: 1, Expired: 1, Orphans: 1, Matches: 2, Events: 4, Summaries: 1}
	for _, dry := range []bool{true, false} {
		args := []string{"prune", "--data", data, "--json"}
		if dry {
			args = append(args, "--dry-run")
		}
		r := vesper(t, nil, nil, args...)
		var got out
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &got) != nil {
			t.Fatalf("prune %v: exit %d stdout %q stderr %q", args, r.code, r.stdout, r.stderr)
		}
		want.DryRun = dry
		if got != want {
			t.Fatalf("prune dry=%v: %+v, want %+v", dry, got, want)
		}
	}
	st, err = store.OpenReadOnly(filepath.Join(data, "vesper.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	for _, c := range []struct {
		name string
		id   string
		kept bool
	}{
		{"expired challenge", expired.ID, false}, {"its junk", expired.Events[1].ID, false},
		{"accepted match", oldLive.ID, true}, {"its accept", oldLive.Events[1].ID, true},
		{"invalid challenge", invalid.ID, false}, {"old orphan", orphanOld.ID, false}, {"new orphan", orphanNew.ID, true},
	} {
		if has, _ := st.HasEvent(ctx, c.id); has != c.kept {
			t.Errorf("%s: kept = %v, want %v", c.name, has, c.kept)
		}
	}
	if r := vesper(t, nil, nil, "prune", "--data", data); r.code != 0 || !strings.Contains(r.stdout, "deleted 0 events") {
		t.Errorf("second prune: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
}

// TestDaemonJunkThroughHonestRelay is items 5 and 11 end to end: junk
// published through an honest embedded relay (a 200 KB move, an event
// naming 100 matches, a burst of challenges from one author) reaches the
// daemon, which folds the legitimate match exactly as verify does, stores
// stubs and not the raw junk, drops what is over the quota, and counts
// both in its metrics.
func TestDaemonJunkThroughHonestRelay(t *testing.T) {
	rs := startRelays(t, 1, relayd.Options{})
	good := scholarsMate(t, testkit.Key("frank"), testkit.Key("grace"))
	last := int64(good.Events[len(good.Events)-1].CreatedAt)
	mallory := testkit.Key("mallory")
	big := good.Move(mallory, 1, "e2e4"+strings.Repeat(" ", 200_000), last-5)
	fan := nostr.NewRequest(good.ID, "", last-4)
	for i := 0; i < 99; i++ {
		fan.Tags = append(fan.Tags, []string{"g", fmt.Sprintf("%064x", i)})
	}
	good.Add(mallory, fan)
	var burst []*nostr.Event
	for i := int64(0); i < 5; i++ {
		burst = append(burst, testkit.Sign(mallory, nostr.NewChallenge("chess", "", time.Now().Unix()-i)))
	}
	publishIndependent(t, rs[0].URL(), append(good.Events, burst...)...)
	data := t.TempDir()
	addr := freeAddr(t)
	startDaemon(t, data, urls(rs), "--metrics", addr, "--quota-open-challenges", "2")
	want := expected(t, good, time.Now().Unix())
	waitFor(t, "the legitimate match", 30*time.Second, func() bool { return summaries(t, data)[good.ID] == want })
	r := vesper(t, nil, nil, "export", "--data", data, "--match", good.ID)
	if r.code != 0 || len(r.stdout) > 30_000 || strings.Contains(r.stdout, "vesper-stub") {
		t.Errorf("export: exit %d, %d bytes (stub listed: %v)", r.code, len(r.stdout), strings.Contains(r.stdout, "vesper-stub"))
	}
	st, err := store.OpenReadOnly(filepath.Join(data, "vesper.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, ev := range []*nostr.Event{big, fan} {
		if se, ok, _ := st.Event(context.Background(), ev.ID); !ok || len(se.Raw) > 6000 {
			t.Errorf("event %s: stored %v, %d bytes; want a stub", ev.ID[:8], ok, len(se.Raw))
		}
	}
	waitFor(t, "the quota and stub counters", time.Minute, func() bool {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		// Each relay read (backfill, then the sync) may deliver the junk
		// again: at least once each is what is certain.
		return metricAtLeast(string(body), `vesper_quota_dropped_total{quota="open_challenges"}`, 3) &&
			metricAtLeast(string(body), `vesper_events_stubbed_total`, 2)
	})
	// Counted only now: the burst may be stored after the legitimate
	// match, and the quota counter above says the burst has been read.
	if got := len(summaries(t, data)); got != 3 {
		t.Errorf("%d matches stored, want 3 (the match and 2 of the burst)", got)
	}
}

// metricAtLeast reports whether the exposition body holds series with a
// value of at least min.
func metricAtLeast(body, series string, min float64) bool {
	for _, l := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(l, series+" "); ok {
			var f float64
			if _, err := fmt.Sscan(v, &f); err == nil && f >= min {
				return true
			}
		}
	}
	return false
}

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/sim"
	"vesper/internal/testkit"
	"vesper/internal/testrelay"
	"vesper/match"
	"vesper/nostr"
	"vesper/store"
)

// splitSeason is matches [from, from+n) of one seeded season stamped
// months ago (each match has its own random stream), keeping the events a
// verifier follows.
func splitSeason(t *testing.T, end int64, from, n int) []*nostr.Event {
	t.Helper()
	s, err := sim.Generate(sim.Config{Seed: 2424, Agents: 12, From: from, Matches: n, End: end})
	if err != nil {
		t.Fatal(err)
	}
	var out []*nostr.Event
	for _, ev := range s.Events() {
		if slices.ContainsFunc(sim.GameFilters(), func(f gn.Filter) bool { return f.Matches(ev) }) {
			out = append(out, ev)
		}
	}
	return out
}

// unionAgrees reports whether the daemon's summary of every match of
// union is what verify computes from union (seen_at missing: created_at,
// PROTOCOL.md section 6; the events are stamped long before they are
// received, so rule 5 never bites).
func unionAgrees(t *testing.T, data string, union []*nostr.Event) (ok bool, wrong int) {
	now := time.Now().Unix()
	got := summaries(t, data)
	ref := sim.Reference(union, nil)
	for id, s := range ref {
		if got[id] != strings.TrimSpace(string(match.MarshalLine(s.Summary(now)))) {
			wrong++
		}
	}
	return wrong == 0 && len(got) == len(ref), wrong
}

// checkStoredOnce asserts that the store holds exactly the events of
// union, each once.
func checkStoredOnce(t *testing.T, data string, union []*nostr.Event) {
	t.Helper()
	st, err := store.OpenReadOnly(filepath.Join(data, "vesper.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ids := make([]string, len(union))
	for i, ev := range union {
		ids[i] = ev.ID
	}
	known, err := st.KnownIDs(t.Context(), ids)
	if err != nil {
		t.Fatal(err)
	}
	n, _, err := st.Stats(t.Context())
	if err != nil || len(known) != len(union) || n != len(union) {
		t.Fatalf("the store holds %d events (%v), %d of the relay's %d", n, err, len(known), len(union))
	}
}

// TestDaemonSyncCappedKhatru is issue 24's "done when": a daemon
// restarted after downtime against a stock khatru relay (slicestore,
// which caps every query at 500, NIP-77 sessions included) stores every
// event once and agrees with verify on every match. Meanwhile whole
// matches stamped inside the season reached the relay: only a
// reconciliation finds them, and only one that splits the relay's cut
// set finds all of them (without the split check most are never stored).
func TestDaemonSyncCappedKhatru(t *testing.T) {
	r := testrelay.Khatru(t, testrelay.KhatruOptions{})
	end := time.Now().Add(-60 * 24 * time.Hour).Unix()
	first := splitSeason(t, end, 0, 30)
	if err := r.Store(t.Context(), first...); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	d := startDaemon(t, data, r.URL)
	waitFor(t, "the first part of the season", 120*time.Second, func() bool { ok, _ := unionAgrees(t, data, first); return ok })
	d.kill()

	late := splitSeason(t, end, 30, 12)
	if err := r.Store(t.Context(), late...); err != nil {
		t.Fatal(err)
	}
	union := append(slices.Clone(first), late...)
	os.Remove(filepath.Join(data, "daemon.log"))
	startDaemon(t, data, r.URL)
	deadline := time.Now().Add(testkit.Scale(120 * time.Second))
	for {
		ok, wrong := unionAgrees(t, data, union)
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the restart %d of the matches differ from verify's", wrong)
		}
		time.Sleep(100 * time.Millisecond)
	}
	checkStoredOnce(t, data, union)
	// The sync's log line says the relay's set was split.
	if !waitLog(filepath.Join(data, "daemon.log"), "nip77_splits", time.Minute) {
		t.Error("the sync's log line does not record the splits")
	}
}

// TestSyncCommandCappedKhatru is the first report: `vesper sync`
// into an empty store from stock khatru stored 540 of a season's events
// (the relay's newest 500 and what they named). Now every event is
// stored once, every match agrees with verify, and the relay's line says
// how many windows were split.
func TestSyncCommandCappedKhatru(t *testing.T) {
	r := testrelay.Khatru(t, testrelay.KhatruOptions{})
	union := splitSeason(t, time.Now().Add(-60*24*time.Hour).Unix(), 0, 40)
	if err := r.Store(t.Context(), union...); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	res := vesper(t, nil, nil, "sync", "--data", data, "--relays", r.URL)
	if res.code != 0 {
		t.Fatalf("sync: exit %d: %s", res.code, res.stderr)
	}
	if !strings.Contains(res.stdout, "nip77, compared 0, fetched ") || !strings.Contains(res.stdout, "windows split (set cut by the relay)") {
		t.Fatalf("sync output:\n%s", res.stdout)
	}
	checkStoredOnce(t, data, union)
	if ok, wrong := unionAgrees(t, data, union); !ok {
		t.Fatalf("%d matches differ from verify's", wrong)
	}
}

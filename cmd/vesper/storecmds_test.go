package main

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/nostr"
	"vesper/store"
)

// TestRebuildVerifyLeavesOutTamperedEvents: a store whose raw event was
// altered after ingest (its signature no longer holds) folds with that
// event under a plain rebuild, which trusts the store, and without it under
// `rebuild --verify`, which says how many it left out.
func TestRebuildVerifyLeavesOutTamperedEvents(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(filepath.Join(dir, "vesper.db"))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now().Unix() - 3600
	m := testkit.NewMatch(testkit.Key("pa"), testkit.Key("pb"), "chess", "", t0)
	m.Accept(t0 + 10)
	m.Play([]string{"e2e4", "e7e5", "g1f3", "b8c6"}, t0+20, 10)
	var in []store.Incoming
	for _, ev := range m.Events {
		in = append(in, store.Incoming{Event: ev, SeenAt: int64(ev.CreatedAt)})
	}
	if _, err := st.PutEvents(t.Context(), in); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	// Tamper with the last move's signature, the id left as it was.
	last := m.Events[len(m.Events)-1]
	bad := *last
	bad.Sig = strings.Repeat("0", 64) + last.Sig[64:]
	db, err := sql.Open("sqlite", filepath.Join(dir, "vesper.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE events SET raw = ? WHERE id = ?`, nostr.MarshalEvent(&bad), last.ID); err != nil {
		t.Fatal(err)
	}
	db.Close()

	plies := func() int {
		t.Helper()
		r := vesper(t, nil, nil, "matches", "--data", dir, "--json")
		var sum struct{ Plies int }
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &sum) != nil {
			t.Fatalf("matches: %d %q %q", r.code, r.stdout, r.stderr)
		}
		return sum.Plies
	}
	if r := vesper(t, nil, nil, "rebuild", "--data", dir); r.code != 0 || strings.Contains(r.stdout, "left out") {
		t.Fatalf("rebuild: %d %q %q", r.code, r.stdout, r.stderr)
	}
	if got := plies(); got != 4 {
		t.Fatalf("plain rebuild: %d plies, want 4 (the store is trusted)", got)
	}
	r := vesper(t, nil, nil, "rebuild", "--data", dir, "--verify")
	if r.code != 0 || !strings.Contains(r.stdout, "1 stored events failed their check") || !strings.Contains(r.stderr, last.ID) {
		t.Fatalf("rebuild --verify: %d %q %q", r.code, r.stdout, r.stderr)
	}
	if got := plies(); got != 3 {
		t.Fatalf("rebuild --verify: %d plies, want 3 (the tampered move left out)", got)
	}
}

// TestExportTakesMatchAsArgument (issue 14, bug 8): export takes the match
// as its positional argument (and still --match), accepts --json, and a
// match the store lacks is "not found" (status 6), not a rule refusal.
func TestExportTakesMatchAsArgument(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(filepath.Join(dir, "vesper.db"))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now().Unix() - 3600
	m := testkit.NewMatch(testkit.Key("pa"), testkit.Key("pb"), "chess", "", t0)
	m.Accept(t0 + 10)
	var in []store.Incoming
	for _, ev := range m.Events {
		in = append(in, store.Incoming{Event: ev, SeenAt: int64(ev.CreatedAt)})
	}
	if _, err := st.PutEvents(t.Context(), in); err != nil {
		t.Fatal(err)
	}
	st.Close()
	for _, args := range [][]string{{m.ID}, {"--match", m.ID}, {"--json", m.ID}} {
		r := vesper(t, nil, nil, append([]string{"export", "--data", dir}, args...)...)
		var got struct{ Match string }
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &got) != nil || got.Match != m.ID {
			t.Errorf("export %v: %d %q %q", args, r.code, r.stdout, r.stderr)
		}
	}
	missing := strings.Repeat("ab", 32)
	r := vesper(t, nil, nil, "export", "--data", dir, "--json", missing)
	var e struct{ Error string }
	if r.code != exitNotFound || json.Unmarshal([]byte(r.stdout), &e) != nil || e.Error == "" {
		t.Errorf("export of a missing match: %d %q %q; want status %d and one JSON error", r.code, r.stdout, r.stderr, exitNotFound)
	}
	if r := vesper(t, nil, nil, "export", "--data", dir); r.code != exitUsage {
		t.Errorf("export without a match: status %d, want %d", r.code, exitUsage)
	}
}

// TestExportCarriesReveals: `vesper export` writes match.json with the
// match's reveals exactly as signed (PROTOCOL.md section 8.2), and
// `vesper verify` of it prints the summary of the file without them.
func TestExportCarriesReveals(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(filepath.Join(dir, "vesper.db"))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now().Unix() - 3600
	a := testkit.Key("ra")
	m := testkit.NewMatch(a, testkit.Key("rb"), "chess", "", t0)
	m.Accept(t0 + 10)
	salt := nostr.NewSalt()
	mv := m.Add(a, nostr.WithTalk(nostr.NewMove(m.ID, 1, "e4", t0+20), nostr.Talk{Reasoning: nostr.ReasoningHash(salt, "e4")}))
	plain := filepath.Join(dir, "plain.json")
	evs, err := nostr.NewReveal(m.ID, []nostr.RevealEntry{{Event: mv.ID, Salt: salt, Text: "e4"}}, t0+30)
	if err != nil {
		t.Fatal(err)
	}
	rv := testkit.Sign(a, evs[0])
	var in []store.Incoming
	for _, ev := range append(slices.Clone(m.Events), rv) {
		in = append(in, store.Incoming{Event: ev, SeenAt: int64(ev.CreatedAt)})
	}
	if _, err := st.PutEvents(t.Context(), in); err != nil {
		t.Fatal(err)
	}
	st.Close()
	r := vesper(t, nil, nil, "export", "--data", dir, m.ID)
	if r.code != 0 || !strings.Contains(r.stdout, string(nostr.MarshalEvent(rv))) {
		t.Fatalf("export: %d, reveal missing from %q %q", r.code, r.stdout, r.stderr)
	}
	with := filepath.Join(dir, "with.json")
	if err := os.WriteFile(with, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	// The same file without the reveal line verifies to the same summary.
	if err := os.WriteFile(plain, []byte(strings.Replace(r.stdout, ","+string(nostr.MarshalEvent(rv)), "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	v1, v2 := vesper(t, nil, nil, "verify", "--json", with), vesper(t, nil, nil, "verify", "--json", plain)
	if v1.code != 0 || v1.stdout != v2.stdout || strings.Contains(v1.stdout, rv.ID) {
		t.Errorf("verify with the reveal: %d %q; without: %d %q", v1.code, v1.stdout, v2.code, v2.stdout)
	}
}

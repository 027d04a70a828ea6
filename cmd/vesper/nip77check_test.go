package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vesper/internal/testkit"
	"vesper/internal/testrelay"
	"vesper/nostr"
	"vesper/relayd"
)

// TestRelaysNIP77Check is issue 34: `vesper relays --nip77-check` shows
// the check every sync makes before it trusts a relay's NIP-77 answers.
// strfry 1.x with restricted reads answers NIP-77 empty after AUTH (not
// trusted; `vesper sync --key` then pages it and gets every event), and
// stock khatru's view holds every event its REQs read (trusted).
func TestRelaysNIP77Check(t *testing.T) {
	final := pastGame(t, "check-final", len(demoGame), true)
	open := pastGame(t, "check-open", 3, false)
	ms := []*testkit.Match{final, open}
	var seed []*nostr.Event
	for _, m := range ms {
		seed = append(seed, m.Events...)
	}
	strfry := testrelay.Strfry(t, testrelay.StrfryOptions{AuthReads: true, Seed: seed})
	kh := testrelay.Khatru(t, testrelay.KhatruOptions{})
	if err := kh.Store(t.Context(), seed...); err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "k.key")
	if r := vesper(t, nil, nil, "keygen", "--out", keyFile); r.code != 0 {
		t.Fatalf("keygen: %s", r.stderr)
	}
	r := vesper(t, nil, nil, "relays", "--nip77-check", "--key", keyFile, "--relays", strfry+","+kh.URL)
	if r.code != 0 || !strings.Contains(r.stdout, "nip77 check not trusted: NIP-77 lists none of the 2 events REQs read") ||
		!strings.Contains(r.stdout, "nip77 check trusted (2/2, 14/14)") {
		t.Fatalf("relays --nip77-check: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	data := t.TempDir()
	r = vesper(t, nil, nil, "sync", "--data", data, "--relays", strfry, "--key", keyFile)
	if r.code != 0 || !strings.Contains(r.stdout, "fetched 16") {
		t.Fatalf("sync --key: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	checkStore(t, data, ms)
}

// TestSyncNamesMissing is issue 34, item 4: a relay that lists an event in
// NIP-77 and will not send it (here a move whose signature fails, which
// the gate refuses each time) is asked for it twice, the second time by id
// alone; then `vesper sync` exits 8 naming it, and --json is one object
// with the report and the error.
func TestSyncNamesMissing(t *testing.T) {
	m := pastGame(t, "missing", 6, false)
	r := startRelayWith(t, relayd.Options{})
	forged := *testkit.Sign(m.A, nostr.NewMove(m.ID, 7, "e2e4", int64(m.Events[len(m.Events)-1].CreatedAt)+5))
	forged.Sig = strings.Repeat("cd", 64)
	for _, ev := range append(slices.Clone(m.Events), &forged) {
		if err := r.Inject(t.Context(), ev); err != nil {
			t.Fatal(err)
		}
	}
	res := vesper(t, nil, nil, "sync", "--data", t.TempDir(), "--relays", r.URL())
	if res.code != exitMissing || !strings.Contains(res.stderr, forged.ID) {
		t.Fatalf("sync: exit %d (want %d)\n%s%s", res.code, exitMissing, res.stdout, res.stderr)
	}
	res = vesper(t, nil, nil, "sync", "--json", "--data", t.TempDir(), "--relays", r.URL())
	var obj struct {
		Code   int `json:"code"`
		Relays []struct {
			MissingIDs []string `json:"missing_ids"`
		} `json:"relays"`
	}
	if res.code != exitMissing || json.Unmarshal([]byte(res.stdout), &obj) != nil || obj.Code != exitMissing ||
		len(obj.Relays) != 1 || !slices.Equal(obj.Relays[0].MissingIDs, []string{forged.ID}) {
		t.Fatalf("sync --json: exit %d: %s", res.code, res.stdout)
	}
}

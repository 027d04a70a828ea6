package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/testkit"
	"vesper/internal/testrelay"
	"vesper/nostr"
)

// TestStrfryAuthReads is issue 24, item 2: a strfry that reads the game
// kinds only to NIP-42-authenticated clients ("ERROR: auth-required: ..."
// in CLOSED, "auth-required: ..." in NEG-ERR, a challenge only with the
// refusal). With a key, the daemon stores every event, `vesper sync`
// reads everything and `vesper status` shows the match; without
// one, sync and status exit 7 and say that the relay requires NIP-42
// authentication and a --key.
func TestStrfryAuthReads(t *testing.T) {
	final := pastGame(t, "strfry-final", len(demoGame), true)
	open := pastGame(t, "strfry-open", 3, false)
	ms := []*testkit.Match{final, open}
	var seed []*nostr.Event
	for _, m := range ms {
		seed = append(seed, m.Events...)
	}
	stats := &testrelay.StrfryStats{}
	u := testrelay.Strfry(t, testrelay.StrfryOptions{AuthReads: true, Seed: seed, Stats: stats})
	keyFile := filepath.Join(t.TempDir(), "daemon.key")
	if r := vesper(t, nil, nil, "keygen", "--out", keyFile); r.code != 0 {
		t.Fatalf("keygen: %s", r.stderr)
	}

	t.Run("daemon", func(t *testing.T) {
		data, addr := t.TempDir(), freeAddr(t)
		startDaemon(t, data, u, "--key", keyFile, "--metrics", addr)
		waitFor(t, "every match from the strfry relay", 60*time.Second, func() bool { return allExpected(t, data, ms) })
		checkStore(t, data, ms)
		// strfry 1.x answers NIP-77 empty after AUTH (issue 34): the
		// daemon's sync on connect sees it in its check and pages.
		want := fmt.Sprintf(`vesper_sync_nip77_trusted{relay=%q} 0`, gn.NormalizeURL(u))
		waitFor(t, "the daemon's NIP-77 sync", 60*time.Second, func() bool {
			resp, err := http.Get("http://" + addr + "/metrics")
			if err != nil {
				return false
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			return strings.Contains(string(raw), want)
		})
	})

	t.Run("sync", func(t *testing.T) {
		data := t.TempDir()
		r := vesper(t, nil, nil, "sync", "--data", data, "--relays", u, "--key", keyFile)
		if r.code != 0 || !strings.Contains(r.stdout, ": fallback, compared 16, fetched 16, refused 0 (NIP-77: NIP-77 not trusted: NIP-77 lists none of the 2 events REQs read)") {
			t.Fatalf("sync --key: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		checkStore(t, data, ms)
	})

	t.Run("status", func(t *testing.T) {
		r := vesper(t, nil, nil, "status", "--json", "--relays", u, "--key", keyFile, final.ID)
		var st struct {
			Match  string `json:"match"`
			Status string `json:"status"`
			Plies  int    `json:"plies"`
		}
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &st) != nil || st.Match != final.ID || st.Plies != len(demoGame) {
			t.Fatalf("status --key: exit %d: %s %s", r.code, r.stdout, r.stderr)
		}
	})

	t.Run("no key", func(t *testing.T) {
		auths := stats.Auths.Load()
		for _, args := range [][]string{
			{"sync", "--data", t.TempDir(), "--relays", u},
			{"status", "--relays", u, final.ID},
		} {
			r := vesper(t, nil, nil, args...)
			if r.code != exitAuth || !strings.Contains(r.stderr, "requires NIP-42 authentication") || !strings.Contains(r.stderr, "--key") {
				t.Errorf("%s without a key: exit %d (want %d), stderr %q", args[0], r.code, exitAuth, r.stderr)
			}
		}
		if n := stats.Auths.Load(); n != auths {
			t.Errorf("%d AUTHs without a key", n-auths)
		}
		if r := vesper(t, nil, nil, "--help"); !strings.Contains(r.stdout, "7 no relay answered and one requires NIP-42 authentication") {
			t.Errorf("--help does not document exit status 7: %s", r.stdout)
		}
	})
}

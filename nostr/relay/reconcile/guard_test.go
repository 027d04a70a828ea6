package reconcile

import (
	"strings"
	"testing"
	"time"

	"vesper/internal/hostile"
	"vesper/internal/testkit"
	"vesper/nostr/relay/internal/relaytest"
	"vesper/nostr/relay/limits"
	"vesper/relayd"
)

// TestSyncGuardStrangers (issue 30, item 5): a relay in Strangers (named
// by a player's relay list) on a loopback address is not dialed by Sync,
// for NIP-77, its fallback or its NIP-11 document, unless AllowPrivate;
// the others are dialed as written.
func TestSyncGuardStrangers(t *testing.T) {
	h, err := hostile.Start(t.Context(), hostile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	limits.Forget(h.URL())
	good := relaytest.StartRelay(t, relayd.Options{})
	opts := newMemLocal().options(good.URL(), h.URL())
	opts.Strangers = []string{h.URL()}
	opts.AllowPrivate = false
	stats, _ := syncInto(t, opts)
	if st := stats[1]; !strings.Contains(st.Error, "netguard") {
		t.Errorf("stranger: %s, want refused by netguard", statLine(st))
	}
	if c, i := h.Connections(), h.InfoRequests(); c != 0 || i != 0 {
		t.Errorf("the stranger's relay got %d connections and %d NIP-11 requests", c, i)
	}
	if st := stats[0]; st.Error != "" || st.Method != "nip77" {
		t.Errorf("configured loopback relay: %s, want reconciled as written", statLine(st))
	}
	opts.AllowPrivate = true
	opts.ProbeTimeout = testkit.Scale(300 * time.Millisecond) // the hostile relay never answers NEG-OPEN: expected to run out
	syncInto(t, opts)
	if h.Connections() == 0 {
		t.Error("with private addresses allowed, the stranger's relay was not dialed")
	}
}

package relay

import (
	"errors"
	"strings"
	"testing"
	"time"

	"vesper/nostr/relay/internal/relaytest"
	"vesper/relayd"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/hostile"
	"vesper/internal/netguard"
	"vesper/internal/testkit"
	"vesper/nostr"
)

// TestGuardRefusesStrangersLoopback (issue 30, item 5): a relay someone
// else named (a player's relay list, a nevent's hint) on a loopback address
// is never dialed, not even for its NIP-11 document, by the client's
// following, Fetch, Publish or Watch, unless the operator allows private
// addresses; the operator's own relays are dialed as written.
func TestGuardRefusesStrangersLoopback(t *testing.T) {
	h := startHostile(t, hostile.Options{})
	home := relaytest.StartRelay(t, relayd.Options{})
	untouched := func(what string) {
		t.Helper()
		if c, i := h.Connections(), h.InfoRequests(); c != 0 || i != 0 {
			t.Fatalf("%s: the stranger's relay got %d connections and %d NIP-11 requests", what, c, i)
		}
	}
	guard := Guard{Strangers: []string{h.URL()}}

	_, err := FetchWith(t.Context(), []string{h.URL()}, MatchFilters(strings.Repeat("ab", 32)), FetchOptions{Timeout: testkit.Scale(5 * time.Second), Guard: guard})
	if !errors.Is(err, netguard.ErrBlocked) {
		t.Errorf("Fetch: %v, want netguard.ErrBlocked", err)
	}
	untouched("Fetch")

	ev := relaytest.Move(t, nostr.GenerateKey(), strings.Repeat("ab", 32), 1, time.Now().Unix())
	res := PublishWith(t.Context(), []string{home.URL(), h.URL()}, ev, PublishOptions{Timeout: testkit.Scale(5 * time.Second), Guard: guard})
	if !res[0].OK || !errors.Is(res[1].Err, netguard.ErrBlocked) {
		t.Errorf("Publish: %+v, want the home relay's OK and the stranger's refused", res)
	}
	untouched("Publish")

	cfg := fastConfig(home.URL())
	cfg.AllowPrivate = false
	c, _ := run(t, cfg)
	c.Follow(h.URL())
	waitFor(t, "the followed relay's refusal", func() bool {
		st, ok := stateOf(c, gn.NormalizeURL(h.URL()))
		return ok && strings.Contains(st.LastError, "netguard")
	})
	waitFor(t, "the configured loopback relay, dialed as written", func() bool { return c.Connected() == 1 })
	untouched("the client")

	// The operator's flag lets the same relay in.
	if _, err := FetchWith(t.Context(), []string{h.URL()}, MatchFilters(strings.Repeat("ab", 32)),
		FetchOptions{Timeout: testkit.Scale(5 * time.Second), Guard: Guard{Strangers: guard.Strangers, AllowPrivate: true}}); err != nil {
		t.Errorf("Fetch with private addresses allowed: %v", err)
	}
	if h.Connections() == 0 {
		t.Error("with private addresses allowed, the relay was not dialed")
	}
}

package relayd

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	ws "github.com/coder/websocket"
	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/testkit"
	"vesper/nostr"
)

func TestIsLoopback(t *testing.T) {
	for _, c := range []struct {
		listen string
		want   bool
	}{
		{"127.0.0.1:7447", true}, {"[::1]:0", true}, {"localhost:7447", true}, {"127.1.2.3:1", true},
		{"0.0.0.0:7447", false}, {":7447", false}, {"[::]:7447", false}, {"192.168.1.5:7447", false}, {"garbage", false},
	} {
		if got := IsLoopback(c.listen); got != c.want {
			t.Errorf("IsLoopback(%q) = %v, want %v", c.listen, got, c.want)
		}
	}
}

// TestLimitsPerConnection: a connection over its events per minute is
// refused with "rate-limited:" while a fresh connection is not; a message
// over MaxMessageBytes closes the connection, and one connection over
// MaxConnections is refused.
func TestLimitsPerConnection(t *testing.T) {
	r := startRelay(t, Options{Limits: Limits{EventsPerMinute: 3, MaxMessageBytes: 8000, MaxConnections: 2}})
	key := nostr.GenerateKey()
	// Raw clients: go-nostr's Relay races with itself on Close under -race.
	c1 := dial(t, r.URL())
	for i := 0; i < 3; i++ {
		if ok, reason := c1.publish(signed(t, key, 1, int64(1000+i), "ok")); !ok {
			t.Fatalf("event %d: %s", i, reason)
		}
	}
	if ok, reason := c1.publish(signed(t, key, 1, 1100, "one too many")); ok || !strings.HasPrefix(reason, "rate-limited:") {
		t.Fatalf("fourth event on one connection: %v %q, want rate-limited:", ok, reason)
	}
	c2 := dial(t, r.URL())
	if ok, reason := c2.publish(signed(t, key, 1, 1200, "fresh connection")); !ok {
		t.Fatalf("a second connection has its own budget: %s", reason)
	}
	waitFor(t, "two connections", func() bool { return r.Connections() == 2 })
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(10*time.Second))
	defer cancel()
	if c3, _, err := ws.Dial(ctx, r.URL(), nil); err == nil {
		c3.CloseNow()
		t.Fatal("a third connection was accepted past MaxConnections 2")
	}
	big := signed(t, key, 1, 1300, strings.Repeat("x", 9000))
	// The write may or may not fail before the relay's reset arrives; the
	// relay closing the connection and storing nothing is what counts.
	_ = c2.send(ctx, "EVENT", big)
	waitFor(t, "the oversized message's connection to close", func() bool { return r.Connections() == 1 })
	if r.Has(big.ID) {
		t.Fatal("the oversized event was stored")
	}
}

// TestZeroLimitsLimitNothing: tests of the relay on loopback rely on the
// zero Options adding no limit.
func TestZeroLimitsLimitNothing(t *testing.T) {
	r := startRelay(t, Options{})
	key := nostr.GenerateKey()
	// A raw client: go-nostr's Relay races with itself on Close under -race.
	rc := dial(t, r.URL())
	for i := 0; i < 50; i++ {
		if ok, reason := rc.publish(signed(t, key, 1, int64(2000+i), "ok")); !ok {
			t.Fatalf("event %d: %s", i, reason)
		}
	}
}

// TestNIP11Limitations: max_filters, max_subscriptions and the created_at
// window are announced, and max_filters and the window are enforced.
func TestNIP11Limitations(t *testing.T) {
	r := startRelay(t, Options{MaxFilters: 1, MaxSubscriptions: 5, CreatedAtLowerLimit: 3600, CreatedAtUpperLimit: 60})
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, "http"+r.URL()[2:], nil)
	req.Header.Set("Accept", "application/nostr+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		Software   string `json:"software"`
		Limitation struct {
			MaxFilters int   `json:"max_filters"`
			MaxSubs    int   `json:"max_subscriptions"`
			MaxLimit   int   `json:"max_limit"`
			Lower      int64 `json:"created_at_lower_limit"`
			Upper      int64 `json:"created_at_upper_limit"`
		} `json:"limitation"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	l := doc.Limitation
	if l.MaxFilters != 1 || l.MaxSubs != 5 || l.MaxLimit != DefaultMaxLimit || l.Lower != 3600 || l.Upper != 60 || doc.Software == "" {
		t.Errorf("NIP-11 document: %+v", doc)
	}

	key := nostr.GenerateKey()
	now := time.Now().Unix()
	rc := dial(t, r.URL())
	rc.mustPublish(signed(t, key, nostr.KindMove, now, "in the window"))
	for _, tt := range []struct {
		name string
		at   int64
	}{{"too old", now - 7200}, {"too far ahead", now + 600}} {
		if ok, reason := rc.publish(signed(t, key, nostr.KindMove, tt.at, tt.name)); ok || !strings.HasPrefix(reason, "invalid:") {
			t.Errorf("%s: got %v %q, want invalid:", tt.name, ok, reason)
		}
	}
	rc.mustQuery(gn.Filter{Kinds: []int{nostr.KindMove}})

	ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(5*time.Second))
	defer cancel()
	if err := rc.send(ctx, "REQ", "two", gn.Filter{Kinds: []int{nostr.KindMove}}, gn.Filter{Kinds: []int{nostr.KindChallenge}}); err != nil {
		t.Fatal(err)
	}
	for {
		msg, label, err := rc.next(ctx)
		if err != nil {
			t.Fatalf("no CLOSED for a REQ of two filters: %v", err)
		}
		if label == "CLOSED" {
			var reason string
			json.Unmarshal(msg[2], &reason)
			if !strings.HasPrefix(reason, "blocked:") {
				t.Errorf("CLOSED %q, want blocked:", reason)
			}
			break
		}
	}
	if r.FilterRefusals() != 1 {
		t.Errorf("FilterRefusals %d, want 1", r.FilterRefusals())
	}
}

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
	"github.com/nbd-wtf/go-nostr/nip77/negentropy"
	"github.com/nbd-wtf/go-nostr/nip77/negentropy/storage/empty"

	"vesper/internal/testkit"
	"vesper/nostr"
)

// byHeader counts connections under the X-Client header: on loopback
// every client is 127.0.0.1.
func byHeader(req *http.Request) string { return req.Header.Get("X-Client") }

func dialAs(ctx context.Context, url, client string) (*ws.Conn, *http.Response, error) {
	return ws.Dial(ctx, url, &ws.DialOptions{HTTPHeader: http.Header{"X-Client": {client}}})
}

// TestPerIPLimitKeepsHonestClients (issue 30, item 9): one address that
// opens every connection it can must not lock another client out. Before
// the per-address cap, the flooder took all MaxConnections and the honest
// client got HTTP 429.
func TestPerIPLimitKeepsHonestClients(t *testing.T) {
	r := startRelay(t, Options{Limits: Limits{MaxConnections: 6, MaxConnectionsPerIP: 4, ClientKey: byHeader}})
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(time.Minute))
	defer cancel()
	got := 0
	for range 10 {
		c, resp, err := dialAs(ctx, r.URL(), "flooder")
		if err != nil {
			if resp == nil || resp.StatusCode != http.StatusTooManyRequests {
				t.Fatalf("refusal: %v, want HTTP 429", err)
			}
			break
		}
		defer c.CloseNow()
		got++
	}
	if got != 4 {
		t.Fatalf("one address holds %d connections, want 4 (MaxConnectionsPerIP)", got)
	}
	c, _, err := dialAs(ctx, r.URL(), "honest")
	if err != nil {
		t.Fatalf("an honest client is locked out: %v", err)
	}
	c.CloseNow()
	if _, perIP, _ := r.GuardRefusals(); perIP != 1 {
		t.Errorf("per-address refusals %d, want 1", perIP)
	}
}

// TestIdleConnectionClosed: a connection that sends nothing is closed
// after IdleTimeout, while one holding a subscription stays.
func TestIdleConnectionClosed(t *testing.T) {
	r := startRelay(t, Options{Limits: Limits{IdleTimeout: 200 * time.Millisecond}})
	sub := dial(t, r.URL())
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(time.Minute))
	defer cancel()
	if err := sub.send(ctx, "REQ", "live", gn.Filter{Kinds: []int{nostr.KindMove}}); err != nil {
		t.Fatal(err)
	}
	if _, label, err := sub.next(ctx); err != nil || label != "EOSE" {
		t.Fatalf("subscription: %q %v", label, err)
	}
	waitFor(t, "the subscription to register", func() bool { return r.Subscriptions() == 1 })
	dial(t, r.URL()) // silent
	waitFor(t, "the silent connection to be closed", func() bool {
		_, _, idle := r.GuardRefusals()
		return idle == 1 && r.Connections() == 1
	})
	key := nostr.GenerateKey()
	ev := signed(t, key, nostr.KindMove, 1_700_000_000, "e2e4")
	if err := r.Publish(t.Context(), ev); err != nil {
		t.Fatal(err)
	}
	msg, label, err := sub.next(ctx)
	if err != nil || label != "EVENT" || !strings.Contains(string(msg[2]), ev.ID) {
		t.Fatalf("the subscribed connection did not stay: %q %v", label, err)
	}
}

// negOpen sends a NEG-OPEN as a client holding nothing and returns the
// label of the relay's answer and, for NEG-ERR, its reason.
func negOpen(t *testing.T, rc *rawClient, sub string) (label, reason string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(30*time.Second))
	defer cancel()
	start := negentropy.New(empty.Empty{}, 1<<20).Start()
	if err := rc.send(ctx, "NEG-OPEN", sub, gn.Filter{Kinds: []int{nostr.KindMove}}, start); err != nil {
		t.Fatal(err)
	}
	for {
		msg, label, err := rc.next(ctx)
		if err != nil {
			t.Fatalf("no answer to NEG-OPEN %s: %v", sub, err)
		}
		if !strings.HasPrefix(label, "NEG-") || len(msg) < 3 {
			continue
		}
		var got string
		json.Unmarshal(msg[1], &got)
		if got != sub {
			continue
		}
		var text string
		json.Unmarshal(msg[2], &text)
		if label == "NEG-MSG" && text == "" {
			t.Fatalf("NEG-OPEN %s: the relay finished at once; the test needs sessions that stay open", sub)
		}
		return label, text
	}
}

func seedMoves(t *testing.T, r *Relay, n int) {
	t.Helper()
	key := nostr.GenerateKey()
	for i := range n {
		if err := r.Publish(t.Context(), signed(t, key, nostr.KindMove, 1_700_000_000+int64(i), "e2e4")); err != nil {
			t.Fatal(err)
		}
	}
}

func wantNeg(t *testing.T, rc *rawClient, sub, wantLabel, wantReason string) {
	t.Helper()
	label, reason := negOpen(t, rc, sub)
	if label != wantLabel || !strings.HasPrefix(reason, wantReason) {
		t.Fatalf("NEG-OPEN %s: [%q, %q], want [%q, %q...]", sub, label, reason, wantLabel, wantReason)
	}
}

// TestNegSessionCaps (issue 30, item 9): NIP-77 sessions left open are
// capped per connection and in total, each NEG-OPEN past a cap getting
// NEG-ERR "blocked:"; a NEG-CLOSE frees its place. Before, every NEG-OPEN
// kept a vector of the matching events for as long as the client wished.
func TestNegSessionCaps(t *testing.T) {
	r := startRelay(t, Options{Limits: Limits{NegSessionsPerConnection: 3, NegSessionsTotal: 5}})
	seedMoves(t, r, 20)
	c1, c2 := dial(t, r.URL()), dial(t, r.URL())
	for _, sub := range []string{"a", "b", "c"} {
		wantNeg(t, c1, sub, "NEG-MSG", "")
	}
	wantNeg(t, c1, "d", "NEG-ERR", "blocked:")
	wantNeg(t, c2, "a", "NEG-MSG", "")
	wantNeg(t, c2, "b", "NEG-MSG", "")
	wantNeg(t, c2, "c", "NEG-ERR", "blocked:")
	if open, _ := r.NegSessions(); open != 5 {
		t.Fatalf("%d sessions counted open, want 5", open)
	}
	// Reopening an open session's id replaces it, as khatru does.
	wantNeg(t, c1, "a", "NEG-MSG", "")
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(10*time.Second))
	defer cancel()
	if err := c1.send(ctx, "NEG-CLOSE", "a"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "NEG-CLOSE to free a session", func() bool { open, _ := r.NegSessions(); return open == 4 })
	wantNeg(t, c2, "c", "NEG-MSG", "")
	if neg, _, _ := r.GuardRefusals(); neg != 2 {
		t.Errorf("NEG-OPEN refusals %d, want 2", neg)
	}
	c1.c.CloseNow()
	waitFor(t, "a closed connection's sessions to be freed", func() bool { open, _ := r.NegSessions(); return open == 3 })
}

// TestNegMemoryBudget: the memory counted for open sessions never passes
// NegMemoryBytes, however many connections ask; the NEG-OPEN that would
// pass it is refused.
func TestNegMemoryBudget(t *testing.T) {
	const events = 50
	cost := int64(negBaseBytes + events*negItemBytes)
	budget := 2*cost + cost/2
	r := startRelay(t, Options{Limits: Limits{NegMemoryBytes: budget}})
	seedMoves(t, r, events)
	var refused int
	for i := range 4 {
		rc := dial(t, r.URL())
		label, reason := negOpen(t, rc, "s")
		if label == "NEG-ERR" {
			if !strings.HasPrefix(reason, "blocked:") {
				t.Fatalf("refusal %q, want blocked:", reason)
			}
			refused++
		}
		if _, bytes := r.NegSessions(); bytes > budget {
			t.Fatalf("after %d NEG-OPENs %d bytes counted, over the budget %d", i+1, bytes, budget)
		}
	}
	if refused != 2 {
		t.Fatalf("%d NEG-OPENs refused, want 2 (the budget holds two sessions)", refused)
	}
}

// TestMemoryStoreBytes (issue 30, item 9): a relay without a database
// stops taking events at MemoryStoreBytes ("blocked:") instead of growing
// without bound.
func TestMemoryStoreBytes(t *testing.T) {
	key := nostr.GenerateKey()
	one := eventSize(signed(t, key, nostr.KindMove, 1_700_000_000, "e2e4"))
	r := startRelay(t, Options{Limits: Limits{MemoryStoreBytes: 5*one + one/2}})
	rc := dial(t, r.URL())
	stored := 0
	for i := range 8 {
		ok, reason := rc.publish(signed(t, key, nostr.KindMove, 1_700_000_001+int64(i), "e2e4"))
		if ok {
			stored++
			continue
		}
		if !strings.HasPrefix(reason, "blocked:") {
			t.Fatalf("refusal %q, want blocked:", reason)
		}
	}
	if stored != 5 || r.Count() != 5 {
		t.Fatalf("stored %d (count %d), want 5", stored, r.Count())
	}
}

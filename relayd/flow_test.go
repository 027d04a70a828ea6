package relayd

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/testkit"
	"vesper/nostr"
)

// The frame reader hands its reader one message at a time: the next
// message reaches onMessage (which may make it wait, flow.go) only once
// every byte of the last was read, however many came in one read (issue
// 38 item 2: khatru reads a connection's messages as fast as they come).
func TestClientFramesOneMessageAtATime(t *testing.T) {
	var in []byte
	for _, m := range []string{`["REQ","a",{}]`, `["REQ","b",{}]`, `["REQ","c",{}]`} {
		in = append(in, maskedFrame(0x81, m)...)
	}
	seen := 0
	f := &clientFrames{src: bytes.NewReader(in), maxHold: 1 << 16, onMessage: func([]byte, bool) bool { seen++; return true }}
	buf := make([]byte, 4096)
	n, err := f.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	if seen != 1 || n != len(maskedFrame(0x81, `["REQ","a",{}]`)) {
		t.Fatalf("one read saw %d messages and returned %d bytes; want the first message alone", seen, n)
	}
	rest, err := io.ReadAll(f)
	if err != nil || len(rest)+n != len(in) || seen != 3 {
		t.Fatalf("the rest: %d bytes (%v), %d messages seen", len(rest), err, seen)
	}
}

// A connection with MaxInFlight messages unanswered is not read until an
// answer goes out.
func TestInFlightBound(t *testing.T) {
	g := newGuard(Limits{MaxInFlight: 2}, false, func() int { return 0 }, nil)
	c := &guardedConn{negErrConn: &negErrConn{}, g: g, fl: newFlow(), sessions: map[string]*negSession{}}
	for i := range 2 {
		if !c.admitMessage([]byte(`["REQ","x",{}]`)) {
			t.Fatalf("message %d refused", i)
		}
	}
	admitted := make(chan bool)
	go func() { admitted <- c.admitMessage([]byte(`["REQ","y",{}]`)) }()
	select {
	case <-admitted:
		t.Fatal("a third message was let through with two unanswered")
	case <-time.After(50 * time.Millisecond): // expected to fire: nothing answered yet
	}
	c.answered([]byte(`["EOSE","x"]`))
	select {
	case ok := <-admitted:
		if !ok {
			t.Fatal("the third message was dropped")
		}
	case <-time.After(testkit.Scale(10 * time.Second)):
		t.Fatal("an answer did not let the next message through")
	}
}

// max_subscriptions is enforced: a REQ past it is CLOSED "blocked:", and
// a CLOSE makes room again. It is announced in NIP-11 too.
func TestMaxSubscriptionsEnforced(t *testing.T) {
	r := startRelay(t, Options{MaxSubscriptions: 3})
	rc := dial(t, r.URL())
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(time.Minute))
	defer cancel()
	req := func(id string) (string, string) {
		t.Helper()
		if err := rc.send(ctx, "REQ", id, gn.Filter{Kinds: []int{nostr.KindMove}}); err != nil {
			t.Fatal(err)
		}
		msg, label, err := rc.next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var reason string
		if label == "CLOSED" && len(msg) > 2 {
			json.Unmarshal(msg[2], &reason)
		}
		return label, reason
	}
	for _, id := range []string{"a", "b", "c"} {
		if label, reason := req(id); label != "EOSE" {
			t.Fatalf("REQ %s: %s %s", id, label, reason)
		}
	}
	if label, reason := req("d"); label != "CLOSED" || !strings.HasPrefix(reason, "blocked:") {
		t.Fatalf("a fourth subscription: %s %q, want CLOSED blocked:", label, reason)
	}
	if err := rc.send(ctx, "CLOSE", "a"); err != nil {
		t.Fatal(err)
	}
	if label, reason := req("e"); label != "EOSE" {
		t.Fatalf("after a CLOSE: %s %s", label, reason)
	}
	waitFor(t, "three subscriptions", func() bool { return r.Subscriptions() == 3 })
}

// A connection that keeps exceeding its rate is closed after MaxStrikes
// "rate-limited:" answers, not answered again and again.
func TestFloodingConnectionClosed(t *testing.T) {
	r := startRelay(t, Options{Limits: Limits{ReqsPerMinute: 5, MaxStrikes: 3}})
	rc := dial(t, r.URL())
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(time.Minute))
	defer cancel()
	limited := 0
	for i := range 50 {
		if err := rc.send(ctx, "REQ", "q", gn.Filter{Kinds: []int{nostr.KindMove}, Limit: 1}); err != nil {
			break // closed under the writer
		}
		msg, label, err := rc.next(ctx)
		if err != nil {
			break
		}
		if label == "CLOSED" {
			var reason string
			json.Unmarshal(msg[2], &reason)
			if !strings.HasPrefix(reason, "rate-limited:") {
				t.Fatalf("REQ %d: CLOSED %q", i, reason)
			}
			limited++
		}
		rc.send(ctx, "CLOSE", "q")
	}
	if limited != 3 {
		t.Errorf("%d rate-limited answers before the close, want 3 (MaxStrikes)", limited)
	}
	waitFor(t, "the connection to close", func() bool { return r.Connections() == 0 })
}

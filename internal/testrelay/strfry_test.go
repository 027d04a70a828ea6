package testrelay

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	ws "github.com/coder/websocket"
	gn "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip42"
	"github.com/nbd-wtf/go-nostr/nip77/negentropy"
	"github.com/nbd-wtf/go-nostr/nip77/negentropy/storage/vector"

	"vesper/internal/testkit"
	"vesper/nostr"
)

// wire is a raw client: what it sends and reads are the exact messages.
type wire struct {
	t   *testing.T
	ctx context.Context
	c   *ws.Conn
}

func dialWire(t *testing.T, url string) *wire {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(30*time.Second))
	t.Cleanup(cancel)
	c, _, err := ws.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(1 << 20)
	t.Cleanup(func() { c.CloseNow() })
	return &wire{t, ctx, c}
}

func (w *wire) send(v ...any) {
	w.t.Helper()
	msg, _ := json.Marshal(v)
	if err := w.c.Write(w.ctx, ws.MessageText, msg); err != nil {
		w.t.Fatal(err)
	}
}

// expect reads the next message and compares it with want, as JSON.
func (w *wire) expect(want ...any) []json.RawMessage {
	w.t.Helper()
	_, msg, err := w.c.Read(w.ctx)
	if err != nil {
		w.t.Fatalf("want %v: %v", want, err)
	}
	var arr []json.RawMessage
	if json.Unmarshal(msg, &arr) != nil || len(arr) < len(want) {
		w.t.Fatalf("got %s, want %v", msg, want)
	}
	for i, v := range want {
		if v == nil {
			continue // any value
		}
		exp, _ := json.Marshal(v)
		if string(arr[i]) != string(exp) {
			w.t.Fatalf("got %s, want %v", msg, want)
		}
	}
	return arr
}

func signed(t *testing.T, key nostr.SecretKey, ev *nostr.Event) *nostr.Event {
	t.Helper()
	if err := key.Sign(ev); err != nil {
		t.Fatal(err)
	}
	return ev
}

// TestStrfryWire: the replies strfry's source gives, byte for byte where
// a client may read them.
func TestStrfryWire(t *testing.T) {
	key := nostr.GenerateKey()
	now := time.Now().Unix()
	var evs []*nostr.Event
	for i := range 4 {
		evs = append(evs, signed(t, key, nostr.NewMove(strings.Repeat("ab", 32), i+1, "e2e4", now-int64(100-i))))
	}
	u := Strfry(t, StrfryOptions{AuthReads: true, MaxSyncEvents: 3, MaxEventSize: 2000, Seed: evs})
	w := dialWire(t, u)

	// A filter of restricted kinds only: the challenge, then the refusal.
	w.send("REQ", "q", map[string]any{"kinds": []int{nostr.KindMove}})
	challenge := w.expect("AUTH")
	w.expect("CLOSED", "q", "ERROR: auth-required: requested filter requires authentication")
	// A filter without kinds: served, the restricted events withheld.
	w.send("REQ", "ids", map[string]any{"ids": []string{evs[0].ID}})
	w.expect("EOSE", "ids")
	// NEG-OPEN: no second challenge on this connection, and no "ERROR: ".
	w.send("NEG-OPEN", "n", map[string]any{"kinds": []int{nostr.KindMove}}, "61")
	w.expect("NEG-ERR", "n", "auth-required: requested filter requires authentication")

	// AUTH with a wrong challenge, then the right one.
	var ch string
	json.Unmarshal(challenge[1], &ch)
	if len(ch) != strfryChallengeSize {
		t.Fatalf("challenge %q, want %d characters", ch, strfryChallengeSize)
	}
	bad := nip42.CreateUnsignedAuthEvent("nope", key.PublicKey(), u)
	signed(t, key, &bad)
	w.send("AUTH", bad)
	w.expect("OK", bad.ID, false, "error: challenge string mismatch")
	good := nip42.CreateUnsignedAuthEvent(ch, key.PublicKey(), u)
	signed(t, key, &good)
	w.send("AUTH", good)
	w.expect("OK", good.ID, true, "successfully authenticated")

	w.send("REQ", "q", map[string]any{"kinds": []int{nostr.KindMove}, "limit": 1})
	w.expect("EVENT", "q", nil)
	w.expect("EOSE", "q")
	w.send("CLOSE", "q")

	// More events than maxSyncEvents: refused, with the cap.
	vec := vector.New()
	vec.Seal()
	w.send("NEG-OPEN", "n", map[string]any{"kinds": []int{nostr.KindMove}}, negentropy.New(vec, 100_000).Start())
	w.expect("NEG-ERR", "n", "blocked: too many query results", 3)
	w.send("NEG-MSG", "gone", "61")
	w.expect("NEG-ERR", "gone", "closed: unknown subscription handle")

	// Events: too large, stored, duplicate.
	big := signed(t, key, nostr.NewMove(strings.Repeat("cd", 32), 1, strings.Repeat("x", 2000), now))
	w.send("EVENT", big)
	w.expect("OK", big.ID, false, fmt.Sprintf("invalid: event too large: %d", len((*gn.Event)(big).String())))
	ok := signed(t, key, nostr.NewMove(strings.Repeat("cd", 32), 1, "e2e4", now))
	w.send("EVENT", ok)
	w.expect("OK", ok.ID, true, "")
	w.send("EVENT", ok)
	w.expect("OK", ok.ID, true, "duplicate: have this event")
	w.send("HELLO", "x")
	w.expect("NOTICE", "ERROR: bad msg: unknown cmd")
}

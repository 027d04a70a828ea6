package relayd

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	ws "github.com/coder/websocket"

	gn "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip11"

	"vesper/internal/testkit"
	"vesper/nostr"
)

func startRelay(t *testing.T, opts Options) *Relay {
	t.Helper()
	r, err := Start(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func signed(t *testing.T, key nostr.SecretKey, kind int, createdAt int64, content string, tags ...gn.Tag) *gn.Event {
	t.Helper()
	ev := &gn.Event{Kind: kind, CreatedAt: gn.Timestamp(createdAt), Content: content, Tags: gn.Tags(tags)}
	if err := key.Sign(ev); err != nil {
		t.Fatal(err)
	}
	return ev
}

// waitFor polls cond until it holds, failing the test after 30 s, scaled.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testkit.WaitFor(t, what, 30*time.Second, cond)
}

func stores(t *testing.T) map[string]string {
	return map[string]string{"memory": "", "sqlite": filepath.Join(t.TempDir(), "relay.db")}
}

func TestStoreAndQuery(t *testing.T) {
	for name, db := range stores(t) {
		t.Run(name, func(t *testing.T) {
			r := startRelay(t, Options{DBPath: db, MaxLimit: 5})
			rc := dial(t, r.URL())
			key := nostr.GenerateKey()
			var ids []string
			for i := range 12 {
				ev := signed(t, key, nostr.KindMove, 1000+int64(i), "m", gn.Tag{"g", "match"})
				rc.mustPublish(ev)
				ids = append(ids, ev.ID)
			}
			other := signed(t, key, nostr.KindMove, 2000, "x", gn.Tag{"g", "other"})
			rc.mustPublish(other)

			got := rc.mustQuery(gn.Filter{Kinds: []int{nostr.KindMove}, Tags: gn.TagMap{"g": {"match"}}})
			if len(got) != 5 {
				t.Fatalf("capped query: got %d events, want 5", len(got))
			}
			for i, ev := range got {
				if want := ids[11-i]; ev.ID != want {
					t.Errorf("event %d: got %s, want %s (newest first)", i, ev.ID, want)
				}
			}
			until := gn.Timestamp(1003)
			since := gn.Timestamp(1001)
			got = rc.mustQuery(gn.Filter{Kinds: []int{nostr.KindMove}, Since: &since, Until: &until, Limit: 2})
			if len(got) != 2 || got[0].CreatedAt != 1003 || got[1].CreatedAt != 1002 {
				t.Errorf("since/until/limit: got %v", got)
			}
			got = rc.mustQuery(gn.Filter{IDs: []string{ids[0], other.ID}})
			if len(got) != 2 || got[0].ID != other.ID || got[1].ID != ids[0] {
				t.Errorf("by ids: got %v", got)
			}
			if got := rc.mustQuery(gn.Filter{Kinds: []int{nostr.KindMove}, LimitZero: true}); len(got) != 0 {
				t.Errorf("limit 0: got %d stored events, want none", len(got))
			}
			if n := r.Count(); n != 13 {
				t.Errorf("Count: got %d, want 13", n)
			}
		})
	}
}

func TestSameSecondOrder(t *testing.T) {
	for name, db := range stores(t) {
		t.Run(name, func(t *testing.T) {
			r := startRelay(t, Options{DBPath: db, MaxLimit: 2})
			key := nostr.GenerateKey()
			var ids []string
			for i := range 4 {
				ev := signed(t, key, nostr.KindMove, 50, fmt.Sprint(i))
				if err := r.Publish(t.Context(), ev); err != nil {
					t.Fatal(err)
				}
				ids = append(ids, ev.ID)
			}
			slices.Sort(ids)
			got := dial(t, r.URL()).mustQuery(gn.Filter{Kinds: []int{nostr.KindMove}})
			if len(got) != 2 || got[0].ID != ids[0] || got[1].ID != ids[1] {
				t.Fatalf("got %v, want the two lowest ids %v", got, ids[:2])
			}
		})
	}
}

func TestReplaceable(t *testing.T) {
	for name, db := range stores(t) {
		t.Run(name, func(t *testing.T) {
			r := startRelay(t, Options{DBPath: db})
			rc := dial(t, r.URL())
			key := nostr.GenerateKey()
			older := signed(t, key, 0, 100, `{"name":"a"}`)
			newer := signed(t, key, 0, 200, `{"name":"b"}`)
			rc.mustPublish(newer)
			rc.mustPublish(older)
			got := rc.mustQuery(gn.Filter{Kinds: []int{0}, Authors: []string{key.PublicKey()}})
			if len(got) != 1 || got[0].ID != newer.ID {
				t.Fatalf("got %v, want only the newer profile", got)
			}
		})
	}
}

func TestSQLitePersists(t *testing.T) {
	db := filepath.Join(t.TempDir(), "relay.db")
	key := nostr.GenerateKey()
	ev := signed(t, key, nostr.KindChallenge, 100, `{"game":"chess"}`, gn.Tag{"t", nostr.GamesTopic})
	r, err := Start(t.Context(), Options{DBPath: db})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Publish(t.Context(), ev); err != nil {
		t.Fatal(err)
	}
	r.Close()
	r = startRelay(t, Options{DBPath: db})
	got := dial(t, r.URL()).mustQuery(gn.Filter{Tags: gn.TagMap{"t": {nostr.GamesTopic}}})
	if len(got) != 1 || got[0].ID != ev.ID || got[0].Content != ev.Content {
		t.Fatalf("after reopening: got %v", got)
	}
}

func TestDropConnections(t *testing.T) {
	r := startRelay(t, Options{})
	rc := dial(t, r.URL())
	waitFor(t, "the relay to count the websocket", func() bool { return r.Connections() == 1 })
	if n := r.DropConnections(); n < 1 {
		t.Fatalf("DropConnections closed %d connections", n)
	}
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(5*time.Second))
	defer cancel()
	if _, _, err := rc.c.Read(ctx); err == nil || ctx.Err() != nil {
		t.Fatalf("read after drop: %v, want a closed connection", err)
	}
	waitFor(t, "the relay to forget the websocket", func() bool { return r.Connections() == 0 })
	dial(t, r.URL()).mustQuery(gn.Filter{Kinds: []int{1}}) // still listening
}

func TestStopRestart(t *testing.T) {
	r := startRelay(t, Options{})
	key := nostr.GenerateKey()
	ev := signed(t, key, nostr.KindMove, 100, "e2e4", gn.Tag{"g", "m"})
	if err := r.Publish(t.Context(), ev); err != nil {
		t.Fatal(err)
	}
	url := r.URL()
	r.Stop()
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(2*time.Second))
	defer cancel()
	if c, _, err := ws.Dial(ctx, url, nil); err == nil {
		c.CloseNow()
		t.Fatal("connected to a stopped relay")
	}
	if err := r.Restart(); err != nil {
		t.Fatal(err)
	}
	if r.URL() != url {
		t.Fatalf("URL changed: %s -> %s", url, r.URL())
	}
	if got := dial(t, url).mustQuery(gn.Filter{IDs: []string{ev.ID}}); len(got) != 1 {
		t.Fatalf("after restart: got %d events, want 1", len(got))
	}
}

func TestRejectWrites(t *testing.T) {
	tests := []struct {
		reason, want string
	}{
		{"rate-limited: slow down", "rate-limited: slow down"},
		{"no writes here", "blocked: no writes here"},
	}
	r := startRelay(t, Options{})
	rc := dial(t, r.URL())
	key := nostr.GenerateKey()
	for i, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			r.SetRejectWrites(tt.reason)
			ok, reason := rc.publish(signed(t, key, nostr.KindMove, int64(i), "x"))
			if ok || reason != tt.want {
				t.Fatalf("got %v %q, want false %q", ok, reason, tt.want)
			}
		})
	}
	r.SetRejectWrites("")
	rc.mustPublish(signed(t, key, nostr.KindMove, 9, "x"))
}

func TestDuplicates(t *testing.T) {
	tests := []struct {
		name   string
		notOK  bool
		wantOK bool
		prefix string
	}{
		{"khatru default", false, true, ""},
		{"DuplicateNotOK", true, false, "duplicate:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := startRelay(t, Options{DuplicateNotOK: tt.notOK})
			rc := dial(t, r.URL())
			ev := signed(t, nostr.GenerateKey(), nostr.KindMove, 1, "x")
			rc.mustPublish(ev)
			ok, reason := rc.publish(ev)
			if ok != tt.wantOK || !strings.HasPrefix(reason, tt.prefix) {
				t.Fatalf("second publish: got %v %q, want %v %q...", ok, reason, tt.wantOK, tt.prefix)
			}
		})
	}
}

func TestRequireAuth(t *testing.T) {
	r := startRelay(t, Options{RequireAuth: true})
	key := nostr.GenerateKey()
	r.Publish(t.Context(), signed(t, key, nostr.KindMove, 1, "x"))
	rc := dial(t, r.URL())
	_, closed, err := rc.query(gn.Filter{Kinds: []int{nostr.KindMove}})
	if err != nil || !strings.HasPrefix(closed, "auth-required:") {
		t.Fatalf("got %v %q, want CLOSED auth-required:", err, closed)
	}
	if ok, reason := rc.publish(signed(t, key, nostr.KindMove, 2, "y")); ok || !strings.HasPrefix(reason, "auth-required:") {
		t.Fatalf("unauthenticated write: got %v %q", ok, reason)
	}
	if rc.challenge == "" {
		t.Fatal("no AUTH challenge from the relay")
	}
	if ok, reason := rc.auth(r.URL(), key); !ok {
		t.Fatalf("AUTH refused: %s", reason)
	}
	if got := rc.mustQuery(gn.Filter{Kinds: []int{nostr.KindMove}}); len(got) != 1 {
		t.Fatalf("after AUTH: got %d events, want 1", len(got))
	}
	rc.mustPublish(signed(t, key, nostr.KindMove, 3, "z"))
}

// TestAuthChallengedOnce: a relay that requires AUTH challenges each
// connection once (NIP-42), on connect or, when AUTH became required
// after the connection opened, at its first refusal; the refusals that
// follow (REQ, EVENT, NEG-OPEN) bring no new AUTH message (khatru alone
// sends one before each), and the one challenge still authenticates.
func TestAuthChallengedOnce(t *testing.T) {
	for _, later := range []bool{false, true} {
		t.Run(map[bool]string{false: "from the start", true: "required later"}[later], func(t *testing.T) {
			r := startRelay(t, Options{RequireAuth: !later})
			rc := dial(t, r.URL())
			if later {
				rc.mustQuery(gn.Filter{Kinds: []int{nostr.KindMove}})
				r.SetRequireAuth(true)
			}
			key := nostr.GenerateKey()
			f := gn.Filter{Kinds: []int{nostr.KindMove}}
			for i := range 3 {
				if _, closed, err := rc.query(f); err != nil || !strings.HasPrefix(closed, "auth-required:") {
					t.Fatalf("REQ %d: got %v %q, want CLOSED auth-required:", i, err, closed)
				}
				if ok, reason := rc.publish(signed(t, key, nostr.KindMove, int64(i+1), "x")); ok || !strings.HasPrefix(reason, "auth-required:") {
					t.Fatalf("EVENT %d: got %v %q, want auth-required:", i, ok, reason)
				}
				if _, reason := negError(t, rc, f, false); !strings.HasPrefix(reason, "auth-required:") {
					t.Fatalf("NEG-OPEN %d: got %q, want auth-required:", i, reason)
				}
			}
			if rc.challenges != 1 {
				t.Fatalf("%d AUTH challenges on one connection, want 1", rc.challenges)
			}
			if ok, reason := rc.auth(r.URL(), key); !ok {
				t.Fatalf("AUTH with the one challenge refused: %s", reason)
			}
			rc.mustQuery(f)
		})
	}
}

func TestInjectServesForgedEvents(t *testing.T) {
	r := startRelay(t, Options{})
	rc := dial(t, r.URL())
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(5*time.Second))
	defer cancel()
	if err := rc.send(ctx, "REQ", "live", gn.Filter{Kinds: []int{nostr.KindMove}, LimitZero: true}); err != nil {
		t.Fatal(err)
	}
	if _, label, err := rc.next(ctx); err != nil || label != "EOSE" {
		t.Fatalf("got %q %v, want EOSE", label, err)
	}
	ev := signed(t, nostr.GenerateKey(), nostr.KindMove, 1, "x")
	ev.Content = "tampered" // id and signature no longer match
	if err := r.Inject(t.Context(), ev); err != nil {
		t.Fatal(err)
	}
	msg, label, err := rc.next(ctx)
	if err != nil || label != "EVENT" || !strings.Contains(string(msg[2]), "tampered") {
		t.Fatalf("live: got %q %v, want the forged event", label, err)
	}
	got := dial(t, r.URL()).mustQuery(gn.Filter{Kinds: []int{nostr.KindMove}})
	if len(got) != 1 || got[0].Content != "tampered" {
		t.Fatalf("stored: got %v, want the forged event", got)
	}
}

func TestNIP11(t *testing.T) {
	tests := []struct {
		name       string
		opts       Options
		maxLimit   int
		auth       bool
		restricted bool
	}{
		{"advertised", Options{MaxLimit: 7}, 7, false, false},
		{"hidden", Options{MaxLimit: 7, HideLimits: true}, 0, false, false},
		{"auth", Options{RequireAuth: true}, DefaultMaxLimit, true, false},
		{"restricted writes", Options{RestrictedWrites: true}, DefaultMaxLimit, false, true},
		{"silent refusal", Options{RejectWrites: "blocked: no"}, DefaultMaxLimit, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := startRelay(t, tt.opts)
			info, err := nip11.Fetch(t.Context(), r.URL())
			if err != nil {
				t.Fatal(err)
			}
			if info.Limitation == nil {
				t.Fatal("no limitation document")
			}
			if got := info.Limitation.MaxLimit; got != tt.maxLimit {
				t.Errorf("max_limit: got %d, want %d", got, tt.maxLimit)
			}
			if got := info.Limitation.AuthRequired; got != tt.auth {
				t.Errorf("auth_required: got %v, want %v", got, tt.auth)
			}
			if got := info.Limitation.RestrictedWrites; got != tt.restricted {
				t.Errorf("restricted_writes: got %v, want %v", got, tt.restricted)
			}
		})
	}
}

func TestContextEndsRelay(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	r, err := Start(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dial(t, r.URL())
	cancel()
	waitFor(t, "the relay to close", func() bool {
		dctx, dcancel := context.WithTimeout(t.Context(), testkit.Scale(time.Second))
		defer dcancel()
		c, _, err := ws.Dial(dctx, r.URL(), nil)
		if err == nil {
			c.CloseNow()
		}
		return err != nil
	})
	if err := r.Restart(); err == nil {
		t.Error("Restart after the relay closed succeeded")
	}
}

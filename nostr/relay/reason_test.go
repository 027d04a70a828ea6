package relay

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	ws "github.com/coder/websocket"
	gn "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip77/negentropy"
	"github.com/nbd-wtf/go-nostr/nip77/negentropy/storage/vector"

	"vesper/internal/testkit"
	"vesper/nostr"
	"vesper/nostr/relay/internal/wire"
	"vesper/nostr/relay/limits"
)

// TestRefusalErrors: CLOSED and NEG-ERR reasons read through the one
// prefix function: auth-required is ErrAuthRequired wherever it is put,
// restricted is ErrRestricted and never ErrAuthRequired.
func TestRefusalErrors(t *testing.T) {
	for _, c := range []struct {
		reason               string
		auth, restricted, rl bool
	}{
		{"auth-required: x", true, false, false},
		{"ERROR: auth-required: requested filter requires authentication", true, false, false},
		{"restricted: members only", false, true, false},
		{"ERROR: restricted: members only", false, true, false},
		{"rate-limited: slow down", false, false, true},
		{"blocked: too many query results", false, false, false},
	} {
		for _, err := range []error{&wire.ClosedError{Relay: "ws://r", Reason: c.reason}} {
			if errors.Is(err, wire.ErrAuthRequired) != c.auth || errors.Is(err, wire.ErrRestricted) != c.restricted || errors.Is(err, wire.ErrRateLimited) != c.rl {
				t.Errorf("%T %q: auth %v restricted %v rate-limited %v, want %v %v %v", err, c.reason,
					errors.Is(err, wire.ErrAuthRequired), errors.Is(err, wire.ErrRestricted), errors.Is(err, wire.ErrRateLimited), c.auth, c.restricted, c.rl)
			}
		}
	}
}

// refusingRelay refuses every REQ (CLOSED), EVENT (OK false) and NEG-OPEN
// (NEG-ERR) with reason, after an AUTH challenge, until the connection
// has authenticated; then it serves ev, stores what it is sent and
// reconciles. It counts the AUTHs it accepted.
type refusingRelay struct {
	url    string
	ev     *gn.Event
	reason string
	auths  atomic.Int64
}

func startRefusing(t *testing.T, reason string, ev *gn.Event) *refusingRelay {
	t.Helper()
	rr := &refusingRelay{ev: ev, reason: reason}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Header.Get("Upgrade") == "" {
			w.Header().Set("Content-Type", "application/nostr+json")
			w.Write([]byte(`{"supported_nips":[1,11,42,77]}`))
			return
		}
		c, err := ws.Accept(w, req, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		rr.serve(req.Context(), c)
	}))
	t.Cleanup(srv.Close)
	rr.url = "ws" + strings.TrimPrefix(srv.URL, "http")
	limits.Forget(rr.url)
	return rr
}

func (rr *refusingRelay) serve(ctx context.Context, c *ws.Conn) {
	var (
		wmu      sync.Mutex
		authed   bool
		asked    bool
		negs     = map[string]*negentropy.Negentropy{}
		challeng = "challenge-" + rr.reason
	)
	send := func(v ...any) {
		msg, _ := json.Marshal(v)
		wmu.Lock()
		defer wmu.Unlock()
		c.Write(ctx, ws.MessageText, msg)
	}
	refuse := func(v ...any) {
		if !asked {
			asked = true
			send("AUTH", challeng)
		}
		send(v...)
	}
	for {
		_, msg, err := c.Read(ctx)
		if err != nil {
			return
		}
		var arr []json.RawMessage
		if json.Unmarshal(msg, &arr) != nil || len(arr) < 2 {
			continue
		}
		var label, sub string
		json.Unmarshal(arr[0], &label)
		json.Unmarshal(arr[1], &sub)
		switch label {
		case "AUTH":
			var ev gn.Event
			json.Unmarshal(arr[1], &ev)
			ok := ev.Kind == 22242 && ev.Tags.FindWithValue("challenge", challeng) != nil && ev.CheckID()
			if ok {
				authed = true
				rr.auths.Add(1)
			}
			send("OK", ev.ID, ok, "")
		case "EVENT":
			var ev gn.Event
			json.Unmarshal(arr[1], &ev)
			if !authed {
				refuse("OK", ev.ID, false, rr.reason)
				continue
			}
			send("OK", ev.ID, true, "")
		case "REQ":
			if !authed {
				refuse("CLOSED", sub, rr.reason)
				continue
			}
			var f gn.Filter
			if len(arr) > 2 && json.Unmarshal(arr[2], &f) == nil && f.Matches(rr.ev) {
				send("EVENT", sub, rr.ev)
			}
			send("EOSE", sub)
		case "NEG-OPEN", "NEG-MSG":
			if label == "NEG-OPEN" && !authed {
				refuse("NEG-ERR", sub, rr.reason)
				continue
			}
			var m string
			json.Unmarshal(arr[len(arr)-1], &m)
			n := negs[sub]
			if label == "NEG-OPEN" {
				vec := vector.New()
				vec.Insert(rr.ev.CreatedAt, rr.ev.ID)
				vec.Seal()
				n = negentropy.New(vec, 100_000)
				negs[sub] = n
			}
			if n == nil {
				send("NEG-ERR", sub, "closed: unknown subscription handle")
				continue
			}
			out, err := n.Reconcile(m)
			if err != nil {
				send("NEG-ERR", sub, "PROTOCOL-ERROR")
				continue
			}
			send("NEG-MSG", sub, out)
		}
	}
}

// TestRefusalAnsweredWithAuth: a REQ refused by CLOSED, an EVENT by OK
// false each with "auth-required:" at the start
// or behind strfry's "ERROR: ", are answered with AUTH and sent again; a
// "restricted:" refusal is not (it is ErrRestricted, or a refused OK); and
// without a key, the error says so (ErrAuthNoKey).
func TestRefusalAnsweredWithAuth(t *testing.T) {
	author := nostr.GenerateKey()
	ev := move(t, author, strings.Repeat("ab", 32), 1, time.Now().Unix()-60)
	key := nostr.GenerateKey()
	for _, c := range []struct {
		reason string
		auth   bool // answered with AUTH, and served after it
	}{
		{"auth-required: this relay only serves authenticated clients", true},
		{"ERROR: auth-required: requested filter requires authentication", true},
		{"restricted: members only", false},
		{"ERROR: restricted: members only", false},
	} {
		t.Run(c.reason, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(2*time.Minute))
			defer cancel()
			check := func(what string, rr *refusingRelay, err error) {
				t.Helper()
				switch {
				case c.auth && (err != nil || rr.auths.Load() != 1):
					t.Errorf("%s: %v after %d AUTHs, want served after one AUTH", what, err, rr.auths.Load())
				case !c.auth && (!errors.Is(err, wire.ErrRestricted) || errors.Is(err, wire.ErrAuthRequired) || rr.auths.Load() != 0):
					t.Errorf("%s: %v after %d AUTHs, want wire.ErrRestricted and no AUTH", what, err, rr.auths.Load())
				}
			}

			rr := startRefusing(t, c.reason, ev)
			got, err := FetchWith(ctx, []string{rr.url}, []gn.Filter{{Kinds: []int{nostr.KindMove}}}, FetchOptions{Key: key, Timeout: testkit.Scale(10 * time.Second)})
			check("REQ", rr, err)
			if c.auth && (len(got) != 1 || got[0].Event.ID != ev.ID) {
				t.Errorf("REQ: fetched %d events, want the relay's one", len(got))
			}

			rr = startRefusing(t, c.reason, ev)
			res := PublishWith(ctx, []string{rr.url}, ev, PublishOptions{Key: key, Timeout: testkit.Scale(10 * time.Second)})[0]
			if res.OK != c.auth || res.Err != nil || rr.auths.Load() != map[bool]int64{true: 1}[c.auth] {
				t.Errorf("OK: %+v after %d AUTHs, want accepted %v", res, rr.auths.Load(), c.auth)
			}

			if c.auth {
				// No key: the refusal stands, and the error says why.
				rr = startRefusing(t, c.reason, ev)
				_, err := FetchWith(ctx, []string{rr.url}, []gn.Filter{{Kinds: []int{nostr.KindMove}}}, FetchOptions{Timeout: testkit.Scale(10 * time.Second)})
				if !errors.Is(err, wire.ErrAuthNoKey) {
					t.Errorf("REQ without a key: %v, want wire.ErrAuthNoKey", err)
				}
			}
		})
	}
}

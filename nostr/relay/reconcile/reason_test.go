package reconcile

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
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

// TestNegRefusalAnsweredWithAuth: a NEG-OPEN refused by NEG-ERR with
// "auth-required:" at the start or behind strfry's "ERROR: " is answered
// with AUTH and sent again; a "restricted:" refusal is not
// (wire.ErrRestricted); without a key, the error says so
// (wire.ErrAuthNoKey).
func TestNegRefusalAnsweredWithAuth(t *testing.T) {
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
			rr := startRefusing(t, c.reason, ev)
			d := testkit.Scale(10 * time.Second)
			o := negOptions{maxRounds: 8, first: d, silence: d, dial: d, key: key}
			nr, err := negReconcile(ctx, rr.url, gn.Filter{Kinds: []int{nostr.KindMove}}, nil, o)
			switch {
			case c.auth && (err != nil || rr.auths.Load() != 1):
				t.Errorf("%v after %d AUTHs, want served after one AUTH", err, rr.auths.Load())
			case !c.auth && (!errors.Is(err, wire.ErrRestricted) || errors.Is(err, wire.ErrAuthRequired) || rr.auths.Load() != 0):
				t.Errorf("%v after %d AUTHs, want wire.ErrRestricted and no AUTH", err, rr.auths.Load())
			}
			if c.auth && !slices.Equal(nr.need, []string{ev.ID}) {
				t.Errorf("need %v, want the relay's event", nr.need)
			}
			if c.auth {
				rr = startRefusing(t, c.reason, ev)
				o.key = nostr.SecretKey{}
				if _, err := negReconcile(ctx, rr.url, gn.Filter{Kinds: []int{nostr.KindMove}}, nil, o); !errors.Is(err, wire.ErrAuthNoKey) {
					t.Errorf("without a key: %v, want wire.ErrAuthNoKey", err)
				}
			}
		})
	}
}

// TestNegErrorIs: a NEG-ERR reason is read as a CLOSED reason is.
func TestNegErrorIs(t *testing.T) {
	for _, c := range []struct {
		reason string
		target error
	}{
		{"auth-required: x", wire.ErrAuthRequired},
		{"ERROR: restricted: members only", wire.ErrRestricted},
		{"rate-limited: slow down", wire.ErrRateLimited},
	} {
		if !errors.Is(&NegError{Relay: "ws://r", Reason: c.reason}, c.target) {
			t.Errorf("%q is not %v", c.reason, c.target)
		}
	}
	if errors.Is(&NegError{Relay: "ws://r", Reason: "blocked: too many query results"}, wire.ErrRestricted) {
		t.Error("blocked: read as restricted")
	}
}

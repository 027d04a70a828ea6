package relaytest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip77/negentropy"
	"github.com/nbd-wtf/go-nostr/nip77/negentropy/storage/vector"

	"vesper/internal/testkit"
	"vesper/internal/testrelay"
	"vesper/nostr"
	"vesper/nostr/relay/internal/wire"
)

// Refusing is a relay that refuses every REQ (CLOSED), EVENT (OK false)
// and NEG-OPEN (NEG-ERR) with reason, after an AUTH challenge, until the
// connection has authenticated (NIP-42); then it serves ev, accepts what
// it is sent and reconciles over ev.
type Refusing struct {
	URL    string
	ev     *gn.Event
	reason string
	auths  atomic.Int64
}

// StartRefusing starts a Refusing relay on loopback, closed at the
// test's end.
func StartRefusing(t testing.TB, reason string, ev *gn.Event) *Refusing {
	t.Helper()
	rr := &Refusing{ev: ev, reason: reason}
	rr.URL = testrelay.Scripted(t, `{"supported_nips":[1,11,42,77]}`, func() func(testrelay.Frame) []string {
		rc := &refusingConn{rr: rr, negs: map[string]*negentropy.Negentropy{}, challenge: "challenge-" + reason}
		return rc.answer
	})
	return rr
}

// Auths is how many AUTHs the relay accepted.
func (rr *Refusing) Auths() int64 { return rr.auths.Load() }

// refusingConn is one client connection to a Refusing relay.
type refusingConn struct {
	rr        *Refusing
	authed    bool
	asked     bool
	negs      map[string]*negentropy.Negentropy
	challenge string
}

func (rc *refusingConn) answer(f testrelay.Frame) []string {
	rr := rc.rr
	switch f.Label {
	case "AUTH":
		var ev gn.Event
		json.Unmarshal(f.Raw[1], &ev)
		ok := ev.Kind == 22242 && ev.Tags.FindWithValue("challenge", rc.challenge) != nil && ev.CheckID()
		if ok {
			rc.authed = true
			rr.auths.Add(1)
		}
		return frames("OK", ev.ID, ok, "")
	case "EVENT":
		var ev gn.Event
		json.Unmarshal(f.Raw[1], &ev)
		if !rc.authed {
			return rc.refuse("OK", ev.ID, false, rr.reason)
		}
		return frames("OK", ev.ID, true, "")
	case "REQ":
		if !rc.authed {
			return rc.refuse("CLOSED", f.Sub, rr.reason)
		}
		var fl gn.Filter
		if len(f.Raw) > 2 && json.Unmarshal(f.Raw[2], &fl) == nil && fl.Matches(rr.ev) {
			return append(frames("EVENT", f.Sub, rr.ev), testrelay.EOSE(f.Sub))
		}
		return []string{testrelay.EOSE(f.Sub)}
	case "NEG-OPEN", "NEG-MSG":
		if f.Label == "NEG-OPEN" && !rc.authed {
			return rc.refuse("NEG-ERR", f.Sub, rr.reason)
		}
		return rc.reconcile(f)
	}
	return nil
}

// reconcile answers a NEG-OPEN or NEG-MSG over the relay's one event.
func (rc *refusingConn) reconcile(f testrelay.Frame) []string {
	n := rc.negs[f.Sub]
	if f.Label == "NEG-OPEN" {
		vec := vector.New()
		vec.Insert(rc.rr.ev.CreatedAt, rc.rr.ev.ID)
		vec.Seal()
		n = negentropy.New(vec, 100_000)
		rc.negs[f.Sub] = n
	}
	if n == nil {
		return frames("NEG-ERR", f.Sub, "closed: unknown subscription handle")
	}
	out, err := n.Reconcile(f.Str(len(f.Raw) - 1))
	if err != nil {
		return frames("NEG-ERR", f.Sub, "PROTOCOL-ERROR")
	}
	return frames("NEG-MSG", f.Sub, out)
}

// refuse answers with v, after an AUTH challenge the first time.
func (rc *refusingConn) refuse(v ...any) []string {
	if rc.asked {
		return frames(v...)
	}
	rc.asked = true
	return append(frames("AUTH", rc.challenge), frames(v...)...)
}

// frames is the one frame v, as JSON.
func frames(v ...any) []string {
	b, _ := json.Marshal(v)
	return []string{string(b)}
}

// Refusal is a reason a Refusing relay refuses with, and whether a client
// with a key answers it with AUTH and is then served.
type Refusal struct {
	Reason string
	Auth   bool
}

// Refusals are the reasons as relays put them: auth-required at the start
// or behind strfry's "ERROR: " (answered with AUTH), and restricted (not).
var Refusals = []Refusal{
	{"auth-required: this relay only serves authenticated clients", true},
	{"ERROR: auth-required: requested filter requires authentication", true},
	{"restricted: members only", false},
	{"ERROR: restricted: members only", false},
}

// EachRefusal runs f as a subtest for each of Refusals, with the move the
// Refusing relays serve and a generous deadline.
func EachRefusal(t *testing.T, f func(t *testing.T, ctx context.Context, c Refusal, ev *nostr.Event)) {
	ev := Move(t, nostr.GenerateKey(), strings.Repeat("ab", 32), 1, time.Now().Unix()-60)
	for _, c := range Refusals {
		t.Run(c.Reason, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(2*time.Minute))
			defer cancel()
			f(t, ctx, c, ev)
		})
	}
}

// Check fails the test unless what the client did against rr, ending in
// err, is what c asks: served after one AUTH, or (restricted) refused
// with wire.ErrRestricted, never wire.ErrAuthRequired, and no AUTH.
func (c Refusal) Check(t testing.TB, what string, rr *Refusing, err error) {
	t.Helper()
	switch {
	case c.Auth && (err != nil || rr.Auths() != 1):
		t.Errorf("%s: %v after %d AUTHs, want served after one AUTH", what, err, rr.Auths())
	case !c.Auth && (!errors.Is(err, wire.ErrRestricted) || errors.Is(err, wire.ErrAuthRequired) || rr.Auths() != 0):
		t.Errorf("%s: %v after %d AUTHs, want wire.ErrRestricted and no AUTH", what, err, rr.Auths())
	}
}

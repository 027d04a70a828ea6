package relay

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/testkit"
	"vesper/nostr"
	"vesper/nostr/relay/internal/relaytest"
	"vesper/nostr/relay/internal/wire"
)

// TestRefusalAnsweredWithAuth: a REQ refused by CLOSED, an EVENT by OK
// false each with "auth-required:" at the start
// or behind strfry's "ERROR: ", are answered with AUTH and sent again; a
// "restricted:" refusal is not (it is ErrRestricted, or a refused OK); and
// without a key, the error says so (ErrAuthNoKey).
func TestRefusalAnsweredWithAuth(t *testing.T) {
	author := nostr.GenerateKey()
	ev := relaytest.Move(t, author, strings.Repeat("ab", 32), 1, time.Now().Unix()-60)
	key := nostr.GenerateKey()
	for _, c := range relaytest.Refusals {
		t.Run(c.Reason, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(2*time.Minute))
			defer cancel()
			check := func(what string, rr *relaytest.Refusing, err error) {
				t.Helper()
				switch {
				case c.Auth && (err != nil || rr.Auths() != 1):
					t.Errorf("%s: %v after %d AUTHs, want served after one AUTH", what, err, rr.Auths())
				case !c.Auth && (!errors.Is(err, wire.ErrRestricted) || errors.Is(err, wire.ErrAuthRequired) || rr.Auths() != 0):
					t.Errorf("%s: %v after %d AUTHs, want wire.ErrRestricted and no AUTH", what, err, rr.Auths())
				}
			}

			rr := relaytest.StartRefusing(t, c.Reason, ev)
			got, err := FetchWith(ctx, []string{rr.URL}, []gn.Filter{{Kinds: []int{nostr.KindMove}}}, FetchOptions{Key: key, Timeout: testkit.Scale(10 * time.Second)})
			check("REQ", rr, err)
			if c.Auth && (len(got) != 1 || got[0].Event.ID != ev.ID) {
				t.Errorf("REQ: fetched %d events, want the relay's one", len(got))
			}

			rr = relaytest.StartRefusing(t, c.Reason, ev)
			res := PublishWith(ctx, []string{rr.URL}, ev, PublishOptions{Key: key, Timeout: testkit.Scale(10 * time.Second)})[0]
			if res.OK != c.Auth || res.Err != nil || rr.Auths() != map[bool]int64{true: 1}[c.Auth] {
				t.Errorf("OK: %+v after %d AUTHs, want accepted %v", res, rr.Auths(), c.Auth)
			}

			if c.Auth {
				// No key: the refusal stands, and the error says why.
				rr = relaytest.StartRefusing(t, c.Reason, ev)
				_, err := FetchWith(ctx, []string{rr.URL}, []gn.Filter{{Kinds: []int{nostr.KindMove}}}, FetchOptions{Timeout: testkit.Scale(10 * time.Second)})
				if !errors.Is(err, wire.ErrAuthNoKey) {
					t.Errorf("REQ without a key: %v, want wire.ErrAuthNoKey", err)
				}
			}
		})
	}
}

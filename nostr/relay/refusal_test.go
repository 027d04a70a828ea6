package relay

import (
	"context"
	"errors"
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
	key := nostr.GenerateKey()
	relaytest.EachRefusal(t, func(t *testing.T, ctx context.Context, c relaytest.Refusal, ev *nostr.Event) {
		rr := relaytest.StartRefusing(t, c.Reason, ev)
		got, err := FetchWith(ctx, []string{rr.URL}, []gn.Filter{{Kinds: []int{nostr.KindMove}}}, FetchOptions{Key: key, Timeout: testkit.Scale(10 * time.Second)})
		c.Check(t, "REQ", rr, err)
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

package reconcile

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/testkit"
	"vesper/nostr"
	"vesper/nostr/relay/internal/relaytest"
	"vesper/nostr/relay/internal/wire"
)

// TestNegRefusalAnsweredWithAuth: a NEG-OPEN refused by NEG-ERR with
// "auth-required:" at the start or behind strfry's "ERROR: " is answered
// with AUTH and sent again; a "restricted:" refusal is not
// (wire.ErrRestricted); without a key, the error says so
// (wire.ErrAuthNoKey).
func TestNegRefusalAnsweredWithAuth(t *testing.T) {
	author := nostr.GenerateKey()
	ev := relaytest.Move(t, author, strings.Repeat("ab", 32), 1, time.Now().Unix()-60)
	key := nostr.GenerateKey()
	for _, c := range relaytest.Refusals {
		t.Run(c.Reason, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(2*time.Minute))
			defer cancel()
			rr := relaytest.StartRefusing(t, c.Reason, ev)
			d := testkit.Scale(10 * time.Second)
			o := negOptions{maxRounds: 8, first: d, silence: d, dial: d, key: key}
			nr, err := negReconcile(ctx, rr.URL, gn.Filter{Kinds: []int{nostr.KindMove}}, nil, o)
			switch {
			case c.Auth && (err != nil || rr.Auths() != 1):
				t.Errorf("%v after %d AUTHs, want served after one AUTH", err, rr.Auths())
			case !c.Auth && (!errors.Is(err, wire.ErrRestricted) || errors.Is(err, wire.ErrAuthRequired) || rr.Auths() != 0):
				t.Errorf("%v after %d AUTHs, want wire.ErrRestricted and no AUTH", err, rr.Auths())
			}
			if c.Auth && !slices.Equal(nr.need, []string{ev.ID}) {
				t.Errorf("need %v, want the relay's event", nr.need)
			}
			if c.Auth {
				rr = relaytest.StartRefusing(t, c.Reason, ev)
				o.key = nostr.SecretKey{}
				if _, err := negReconcile(ctx, rr.URL, gn.Filter{Kinds: []int{nostr.KindMove}}, nil, o); !errors.Is(err, wire.ErrAuthNoKey) {
					t.Errorf("without a key: %v, want wire.ErrAuthNoKey", err)
				}
			}
		})
	}
}

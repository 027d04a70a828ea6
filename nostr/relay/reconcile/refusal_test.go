package reconcile

import (
	"context"
	"errors"
	"slices"
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
	key := nostr.GenerateKey()
	relaytest.EachRefusal(t, func(t *testing.T, ctx context.Context, c relaytest.Refusal, ev *nostr.Event) {
		rr := relaytest.StartRefusing(t, c.Reason, ev)
		d := testkit.Scale(10 * time.Second)
		o := negOptions{maxRounds: 8, first: d, silence: d, dial: d, key: key}
		nr, err := negReconcile(ctx, rr.URL, gn.Filter{Kinds: []int{nostr.KindMove}}, nil, o)
		c.Check(t, "NEG-OPEN", rr, err)
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

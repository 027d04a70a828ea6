package reconcile

import (
	"testing"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/testrelay"
	"vesper/nostr"
	"vesper/nostr/relay/limits"
	"vesper/relayd"
)

func startRelay(t *testing.T, opts relayd.Options) *relayd.Relay {
	t.Helper()
	r, err := relayd.Start(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	// A NIP-11 document cached for an earlier relay on this port is not
	// this relay's.
	limits.Forget(r.URL())
	t.Cleanup(func() { r.Close() })
	return r
}

func sign(t *testing.T, key nostr.SecretKey, ev *nostr.Event) *nostr.Event {
	t.Helper()
	if err := key.Sign(ev); err != nil {
		t.Fatal(err)
	}
	return ev
}

func move(t *testing.T, key nostr.SecretKey, match string, ply int, createdAt int64) *nostr.Event {
	return sign(t, key, nostr.NewMove(match, ply, "e2e4", createdAt))
}

// seed stores events on the relay directly, as if published earlier.
func seed(t *testing.T, r *relayd.Relay, evs ...*nostr.Event) {
	t.Helper()
	for _, ev := range evs {
		if err := r.Publish(t.Context(), ev); err != nil {
			t.Fatal(err)
		}
	}
}

func url(r *relayd.Relay) string { return gn.NormalizeURL(r.URL()) }

// startStrfry is testrelay.Strfry with no NIP-11 document cached for its
// address (an earlier relay on the same port had another).
func startStrfry(t *testing.T, opts testrelay.StrfryOptions) string {
	t.Helper()
	u := testrelay.Strfry(t, opts)
	limits.Forget(u)
	return u
}

package reconcile

import (
	"testing"

	"vesper/internal/testrelay"
	"vesper/nostr/relay/limits"
)

// startStrfry is testrelay.Strfry with no NIP-11 document cached for its
// address (an earlier relay on the same port had another).
func startStrfry(t *testing.T, opts testrelay.StrfryOptions) string {
	t.Helper()
	u := testrelay.Strfry(t, opts)
	limits.Forget(u)
	return u
}

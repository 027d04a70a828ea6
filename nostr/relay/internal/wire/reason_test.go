package wire

import (
	"testing"
)

// TestReasonPrefix: the machine-readable prefix of NIP-01 wherever relays
// put it, and nothing that merely looks like one.
func TestReasonPrefix(t *testing.T) {
	for _, c := range []struct{ reason, want string }{
		{"auth-required: this relay only serves authenticated clients", "auth-required"},
		// strfry's CLOSED, and its NOTICE, put every reason behind "ERROR: ".
		{"ERROR: auth-required: requested filter requires authentication", "auth-required"},
		{"error:auth-required: x", "auth-required"},
		{"  Error: AUTH-REQUIRED: x", "auth-required"},
		{"ERROR: restricted: members only", "restricted"},
		{"restricted: not on the list", "restricted"},
		{"rate-limited: slow down", "rate-limited"},
		{"duplicate: have this event", "duplicate"},
		{"blocked: too many query results", "blocked"},
		// strfry's refused AUTH: "error:" is the prefix when nothing follows it.
		{"error: challenge string mismatch", "error"},
		{"ERROR: bad req: auth-required: not a prefix", "error"},
		{"bad req: arr too small", ""},
		{"CLOSED", ""},
		{"", ""},
		{"see https://example.com: auth-required:", ""},
	} {
		if got := ReasonPrefix(c.reason); got != c.want {
			t.Errorf("ReasonPrefix(%q) = %q, want %q", c.reason, got, c.want)
		}
	}
}

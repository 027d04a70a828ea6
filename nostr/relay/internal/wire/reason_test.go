package wire

import (
	"errors"
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

// TestReasonIs: a refusal's reason (CLOSED, NEG-ERR, OK) is read through
// the one prefix function: auth-required is ErrAuthRequired wherever the
// relay puts it, restricted is ErrRestricted and never ErrAuthRequired,
// and a reason with another prefix is none of them. ClosedError answers
// errors.Is with it, as reconcile's NegError does (its refusal test).
func TestReasonIs(t *testing.T) {
	targets := []error{ErrAuthRequired, ErrRestricted, ErrRateLimited}
	for _, c := range []struct {
		reason string
		is     error // nil: none of the targets
	}{
		{"auth-required: x", ErrAuthRequired},
		{"ERROR: auth-required: requested filter requires authentication", ErrAuthRequired},
		{"restricted: members only", ErrRestricted},
		{"ERROR: restricted: members only", ErrRestricted},
		{"rate-limited: slow down", ErrRateLimited},
		{"blocked: too many query results", nil},
		{"ERROR: bad req: auth-required: not a prefix", nil},
		{"", nil},
	} {
		for _, target := range targets {
			want := target == c.is
			if got := ReasonIs(c.reason, target); got != want {
				t.Errorf("ReasonIs(%q, %v) = %v, want %v", c.reason, target, got, want)
			}
			if got := errors.Is(NewClosedError("ws://r", c.reason), target); got != want {
				t.Errorf("errors.Is(ClosedError %q, %v) = %v, want %v", c.reason, target, got, want)
			}
		}
	}
	if ReasonIs("auth-required: x", errors.New("auth-required")) {
		t.Error("an error that only reads like ErrAuthRequired matched")
	}
}

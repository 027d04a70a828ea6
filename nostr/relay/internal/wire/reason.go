package wire

import (
	"errors"
	"strings"
)

// Machine-readable prefixes of the reasons relays give in CLOSED, OK and
// NEG-ERR (NIP-01), as ReasonPrefix returns them.
const (
	PrefixAuthRequired = "auth-required"
	PrefixRestricted   = "restricted"
	PrefixRateLimited  = "rate-limited"
	PrefixDuplicate    = "duplicate"
	PrefixError        = "error"
)

// ErrRestricted is a refusal that authenticating does not lift: the relay
// said "restricted:" (NIP-01: the client is authenticated, or need not be,
// and is still not allowed), so no AUTH is tried for it.
var ErrRestricted = errors.New("relay: restricted by the relay")

// ReasonPrefix is the machine-readable prefix of a relay's reason,
// lowercase and without its colon, or "" when the reason has none. NIP-01
// puts the prefix first ("auth-required: ..."), but strfry writes every
// CLOSED reason behind "ERROR: " ("ERROR: auth-required: requested filter
// requires authentication"), so a leading "error:" that another prefix
// follows is passed over; case and surrounding spaces do not count. This
// is the one reading of CLOSED, OK and NEG-ERR reasons: every check of a
// prefix goes through it.
func ReasonPrefix(reason string) string {
	tok, rest := prefixToken(reason)
	if tok == PrefixError {
		if next, _ := prefixToken(rest); next != "" {
			return next
		}
	}
	return tok
}

// prefixToken splits s into its leading prefix (a word of letters and
// hyphens ended by a colon, lowercased) and what follows; "" and s when s
// does not start with one. Nothing else is a prefix: "bad req: ..." is not,
// so a reason that merely mentions "auth-required:" later is not read as
// asking for AUTH.
func prefixToken(s string) (string, string) {
	s = strings.TrimLeft(s, " \t")
	i := strings.IndexByte(s, ':')
	if i <= 0 || i > maxPrefixLen {
		return "", s
	}
	for _, c := range []byte(s[:i]) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-') {
			return "", s
		}
	}
	return strings.ToLower(s[:i]), s[i+1:]
}

// maxPrefixLen bounds a prefix word: NIP-01's longest is "auth-required".
const maxPrefixLen = 32

// ReasonIs reports whether a relay's reason is the refusal target stands
// for: ErrAuthRequired, ErrRestricted or ErrRateLimited.
func ReasonIs(reason string, target error) bool {
	p := ReasonPrefix(reason)
	switch target {
	case ErrAuthRequired:
		return p == PrefixAuthRequired
	case ErrRestricted:
		return p == PrefixRestricted
	case ErrRateLimited:
		return p == PrefixRateLimited
	}
	return false
}

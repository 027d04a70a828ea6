package nostr

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestPlainStringAgreesWithEncodingJSON: the fast path of string decoding
// gives exactly encoding/json's value, and declines whatever it cannot
// decode as plain bytes (escapes, invalid UTF-8, control characters).
func TestPlainStringAgreesWithEncodingJSON(t *testing.T) {
	lits := []string{`""`, `"abc"`, `"e2e4"`, `"héllo ✓"`, `"\u00e9"`, `"a\"b"`, `"a\\b"`,
		`"\ud83d\ude00"`, "\"a\xffb\"", "\"tab\there\"", `"` + strings.Repeat("f", 128) + `"`, `"<&>"`, `x`, `"`, `"abc`}
	for _, lit := range lits {
		got, ok := plainString([]byte(lit))
		var want string
		err := json.Unmarshal([]byte(lit), &want)
		switch {
		case ok && (err != nil || got != want):
			t.Errorf("%q: fast path gave %q, encoding/json %q (%v)", lit, got, want, err)
		case !ok && err == nil && !strings.ContainsAny(lit, "\\\t") && utf8.ValidString(lit):
			t.Errorf("%q: fast path declined a plain literal", lit)
		}
	}
}

package nostr

import (
	"bytes"
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

// FuzzUnquote: on every string literal json.Valid accepts, unquote gives
// exactly encoding/json's value: escapes, surrogate pairs, unpaired
// surrogates and invalid UTF-8 (both U+FFFD).
func FuzzUnquote(f *testing.F) {
	for _, lit := range []string{`""`, `"abc"`, `"\u00e9\u00E9"`, `"a\"b\\c\/d"`, `"\b\f\n\r\t"`, `"\ud83d\ude00"`,
		`"\ud800"`, `"\udc00\ud800"`, `"\ud800\u0041"`, `"\ud800x"`, `"\ud800\ud800\udc00"`, "\"a\xffb\xc3\"",
		"\"\xed\xa0\x80\"", `"\u0000"`, `"✓ 😀"`, `"\uFFFD"`, "\"\xef\xbf\xbd\"", `"{\"game\":\"chess\"}"`} {
		f.Add([]byte(lit))
	}
	f.Fuzz(func(t *testing.T, lit []byte) {
		var want string
		if !json.Valid(lit) || json.Unmarshal(lit, &want) != nil {
			return
		}
		got, ok := unquote(bytes.TrimSpace(lit)) // as decodeString calls it
		if !ok || got != want {
			t.Fatalf("%q: unquote %q %v, encoding/json %q", lit, got, ok, want)
		}
	})
}

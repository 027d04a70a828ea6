package nostr

import (
	"unicode/utf16"
	"unicode/utf8"
)

// The one decoder of a JSON string's escapes. The relay-input scanner
// (unquote, for keys and strings that are not plain) and the store's
// one-pass reader (canon.str, for the strings of MarshalEvent's spelling)
// both decode with it; the store's reader asks it to refuse every spelling
// AppendString does not write, so what it reads marshals back to the same
// bytes and anything else goes to the strict parser.

// unquote decodes a string literal of a document json.Valid has accepted,
// to exactly what json.Unmarshal gives (invalid UTF-8 and unpaired
// surrogate escapes become U+FFFD), without the second validating pass
// json.Unmarshal would make over it. It reports false for a literal that
// is not well formed, which the caller leaves to encoding/json.
func unquote(lit []byte) (string, bool) {
	if len(lit) < 2 || lit[0] != '"' {
		return "", false
	}
	out, end, ok := appendUnquoted(make([]byte, 0, len(lit)-2), lit, 1, false)
	if !ok || end != len(lit) {
		return "", false
	}
	return string(out), true
}

// appendUnquoted appends to dst the value of the JSON string literal whose
// body starts at b[i], just past its opening quote, and returns the index
// just past its closing quote. It decodes as encoding/json does: the
// escapes \" \\ \/ \b \f \n \r \t and \uXXXX, a surrogate pair to its code
// point, an unpaired surrogate and a byte that is not UTF-8 to U+FFFD. It
// reports false for a control character, an unknown escape, a malformed
// \u or a literal that does not end. With canonical, it reports false also
// for an escape AppendString does not write: \/, and \u for anything but a
// control character without a two-letter escape, in lowercase hex.
func appendUnquoted(dst, b []byte, i int, canonical bool) ([]byte, int, bool) {
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			return dst, i + 1, true
		case c < 0x20:
			return dst, i, false
		case c < utf8.RuneSelf && c != '\\':
			dst = append(dst, c)
			i++
			continue
		case c != '\\':
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, r) // a byte that is not UTF-8, as encoding/json
			} else {
				dst = append(dst, b[i:i+size]...)
			}
			i += size
			continue
		case i+1 >= len(b):
			return dst, i, false
		}
		switch e := b[i+1]; e {
		case '"', '\\':
			dst = append(dst, e)
		case '/':
			if canonical {
				return dst, i, false
			}
			dst = append(dst, e)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, ok := hex4(b[i:])
			if !ok || canonical && !canonicalU(b[i:i+6], r) {
				return dst, i, false
			}
			i += 6
			if utf16.IsSurrogate(r) {
				r2, ok := hex4(b[i:])
				if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
					r = dec
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default:
			return dst, i, false
		}
		i += 2
	}
	return dst, i, false
}

// canonicalU reports whether esc, a \uXXXX escape of r, is how AppendString
// writes r: a control character that has no two-letter escape, as \u00XX in
// lowercase hex.
func canonicalU(esc []byte, r rune) bool {
	switch r {
	case '\b', '\t', '\n', '\f', '\r':
		return false
	}
	return r < 0x20 && esc[2] == '0' && esc[3] == '0' && esc[4] == hexDigits[r>>4] && esc[5] == hexDigits[r&0xf]
}

// hex4 reads the \uXXXX escape at the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range b[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

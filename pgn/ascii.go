package pgn

import (
	"strings"
	"unicode"
)

// The PGN standard's export format is written in a subset of ISO 8859-1
// (Latin-1), and many readers assume ASCII; names come from
// Nostr profiles and hold anything. So tag values are written in printable
// ASCII (ASCII below), by this rule, applied to one character at a time:
//
//   - printable ASCII is kept;
//   - letters of Latin-1 and Latin Extended-A lose their diacritics
//     (é e, Ż Z, ł l), and the ligatures and the letters without a
//     base letter are spelt out (Æ AE, œ oe, ß ss, Þ Th);
//   - typographic punctuation becomes its ASCII form: the ellipsis "…"
//     (how the site shortens a long name or an npub) "...", quotation
//     marks and primes ', dashes and the minus sign -;
//   - spaces of any kind become a space;
//   - anything else (other scripts, emoji, a byte that is not UTF-8) is
//     a question mark, PGN's own "unknown".

// latin1 spells U+00C0..U+00FF, one byte each; a '*' has a spelling in
// digraphs.
const latin1 = "" +
	"AAAAAA*CEEEEIIII" + // U+00C0
	"DNOOOOOxOUUUUY**" + // U+00D0
	"aaaaaa*ceeeeiiii" + // U+00E0
	"dnooooo/ouuuuy*y" //    U+00F0

// latinExtA spells U+0100..U+017F the same way.
const latinExtA = "" +
	"AaAaAaCcCcCcCcDd" + // U+0100
	"DdEeEeEeEeEeGgGg" + // U+0110
	"GgGgHhHhIiIiIiIi" + // U+0120
	"Ii**JjKkkLlLlLlL" + // U+0130
	"lLlNnNnNnnNnOoOo" + // U+0140
	"Oo**RrRrRrSsSsSs" + // U+0150
	"SsTtTtTtUuUuUuUu" + // U+0160
	"UuUuWwYyYZzZzZzs" //   U+0170

// digraphs are the letters spelt with two.
var digraphs = map[rune]string{
	'Æ': "AE", 'Þ': "Th", 'ß': "ss", 'æ': "ae", 'þ': "th",
	'Ĳ': "IJ", 'ĳ': "ij", 'Œ': "OE", 'œ': "oe",
}

// ASCII spells s in printable ASCII by the rule above; control characters
// become spaces.
func ASCII(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		b.WriteString(asciiRune(r))
	}
	return b.String()
}

func asciiRune(r rune) string {
	switch {
	case r >= 0x20 && r < 0x7f:
		return string(r)
	case unicode.IsControl(r), unicode.IsSpace(r), unicode.Is(unicode.Zs, r), r == '\u2028', r == '\u2029':
		return " "
	case r >= 0xc0 && r <= 0xff:
		if c := latin1[r-0xc0]; c != '*' {
			return string(c)
		}
		return digraphs[r]
	case r >= 0x100 && r <= 0x17f:
		if c := latinExtA[r-0x100]; c != '*' {
			return string(c)
		}
		return digraphs[r]
	case r == '…':
		return "..."
	case r >= '‐' && r <= '―', r == '−':
		return "-"
	case r >= '‘' && r <= '‟', r == '′', r == '″', r == '«', r == '»', r == '‹', r == '›':
		return "'"
	}
	return "?"
}

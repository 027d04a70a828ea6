package site

import (
	"fmt"
	"strings"
	"unicode"
)

// shownContent is an event's content as a match page quotes it: one line
// cut to n runes, where every character a reader could not see (control,
// format, bidi, line separators, spaces other than ASCII's) is replaced by
// a mark naming it, ⟨U+200B⟩. Dropping them, as cleanLine does for names,
// made the illegal move `e\u200B5` read as the legal-looking e5 beside
// "not a legal move" (issue 26, item 6). Tabs and line breaks read as
// spaces, as everywhere on the pages.
func shownContent(s string, n int) string {
	var b strings.Builder
	count := 0
	// range yields U+FFFD for each invalid byte, so the result is valid
	// UTF-8 whatever s holds.
	for _, r := range s {
		if count == n {
			b.WriteRune('…')
			break
		}
		count++
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			b.WriteByte(' ')
		case hidden(r):
			fmt.Fprintf(&b, "⟨U+%04X⟩", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// hidden reports a character that shows as nothing, or as an ASCII space.
func hidden(r rune) bool {
	return unicode.IsControl(r) || isInvisible(r) || unicode.Is(unicode.Cf, r) ||
		r == 0x2028 || r == 0x2029 || (r > 0x7f && unicode.IsSpace(r))
}

package site

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// maxTitle is the longest <title> a page has, in runes, the layout's
// " · vesper" included: about what a search result or a tab shows, and the
// limit of html-validate's long-title rule (TestHTMLValidate).
const maxTitle = 70

// titleSuffix is what the layout appends to every page's title.
const titleSuffix = " · vesper"

// fitTitle is format (one %s per name) with the names put in, the longest
// names clipped with an ellipsis so that the title fits maxTitle: a
// player's name (up to maxName runes) may be long, the words around it
// say what the page is and are kept whole.
func fitTitle(format string, names ...string) string {
	fixed := utf8.RuneCountInString(strings.ReplaceAll(format, "%s", "") + titleSuffix)
	budget := maxTitle - fixed
	total := func(limit int) int {
		n := 0
		for _, s := range names {
			n += min(utf8.RuneCountInString(s), limit)
		}
		return n
	}
	limit := 0
	for _, s := range names {
		limit = max(limit, utf8.RuneCountInString(s))
	}
	for limit > 1 && total(limit) > budget {
		limit--
	}
	args := make([]any, len(names))
	for i, s := range names {
		if utf8.RuneCountInString(s) > limit {
			r := []rune(s)
			s = strings.TrimRight(string(r[:max(limit-1, 0)]), " ") + "…"
		}
		args[i] = s
	}
	return fmt.Sprintf(format, args...)
}

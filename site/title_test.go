package site

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A title with two names of maxName runes fits maxTitle, the suffix
// included, keeps its own words and both names' starts; short names are
// left whole.
func TestFitTitle(t *testing.T) {
	long := strings.Repeat("é", maxName)
	got := fitTitle("Connect Four: %s vs anyone (invited: %s)", long, "Bob")
	if n := utf8.RuneCountInString(got + titleSuffix); n > maxTitle {
		t.Errorf("%q is %d runes with the suffix, over %d", got, n, maxTitle)
	}
	if !strings.HasPrefix(got, "Connect Four: éé") || !strings.HasSuffix(got, "… vs anyone (invited: Bob)") {
		t.Errorf("clipped the wrong part: %q", got)
	}
	got = fitTitle("%s vs %s", long, long)
	if n := utf8.RuneCountInString(got + titleSuffix); n > maxTitle || strings.Count(got, "…") != 2 {
		t.Errorf("%q: %d runes, both names should be clipped", got, n)
	}
	if got := fitTitle("Chess: %s vs %s", "Alice", "Bob the Bot"); got != "Chess: Alice vs Bob the Bot" {
		t.Errorf("short names changed: %q", got)
	}
}

package mcpseat

import (
	"strings"
	"testing"

	"vesper/match"
)

// The rules resource states the move clock and the expiry from their
// constants (issue 39): no placeholder is left, and the values appear.
func TestRulesTextFilled(t *testing.T) {
	for _, want := range []string{match.Span(match.MoveClock) + " per move", "in " + match.Span(match.ChallengeExpiry) + "."} {
		if !strings.Contains(rulesText, want) {
			t.Errorf("rules resource lacks %q", want)
		}
	}
	if i := strings.Index(rulesText, "{"); i >= 0 {
		t.Errorf("rules resource keeps a placeholder: %q", rulesText[i:min(len(rulesText), i+30)])
	}
}

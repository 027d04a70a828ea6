package mcpseat

import (
	"reflect"
	"strings"
	"testing"

	"vesper/match"
)

// Every game of the registry is named, with its sides and how its moves
// are written, where a model reads the rules: the rules resource (a
// static text, so this test is its guard), the server's instructions,
// the play tool's description and its move argument (a struct tag).
func TestEveryGameInTheRules(t *testing.T) {
	for _, g := range match.Games() {
		title := func(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
		for _, want := range []string{g.Name, `"` + g.Kind + `"`, title(g.Sides[0]) + " in " + g.Noun, title(g.Sides[1]) + " in " + g.Noun} {
			if !strings.Contains(strings.Join(strings.Fields(rulesText), " "), want) {
				t.Errorf("rules.md does not say %q", want)
			}
		}
		f, _ := reflect.TypeOf(PlayArgs{}).FieldByName("Move")
		for what, text := range map[string]string{"instructions": instructions, "roles": roles, "play": moveHelp(), "play's move argument": f.Tag.Get("jsonschema")} {
			if !strings.Contains(text, g.Noun) && !strings.Contains(text, g.Name) {
				t.Errorf("%s does not name %s: %q", what, g.Noun, text)
			}
		}
	}
}

package mcpseat_test

import (
	"strings"
	"testing"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/mcpseat"
	"vesper/seat"
)

// TestConnect4ToFour: a Connect Four game through the tools alone: Red stacks four in column d at ply 7 and
// both sign. game_state names the sides red and yellow and lists the
// columns that are not full.
func TestConnect4ToFour(t *testing.T) {
	testkit.QuickLoopSkips(t)
	t.Parallel()
	r := startRelay(t)
	red := startAgent(t, r.URL(), "mcp-red")
	yellow := startAgent(t, r.URL(), "mcp-yellow")

	ch := ok[seat.Reply](red, "challenge", map[string]any{"game": "connect4"})
	ok[seat.Reply](yellow, "accept", map[string]any{"match": ch.Match})
	st := ok[seat.Status](red, "game_state", map[string]any{"match": ch.Match})
	if st.MyColor != "red" || len(st.LegalMoves) != 7 || st.LegalMoves[3].Column != "d" {
		t.Fatalf("start: my_color %q, legal %+v", st.MyColor, st.LegalMoves)
	}
	playOut(t, ch.Match,
		&player{a: red, moves: []string{"d", "d", "d", "d"}},
		&player{a: yellow, moves: []string{"c", "c", "c"}})

	st = ok[seat.Status](yellow, "game_state", map[string]any{"match": ch.Match})
	if !st.Final || st.Result == nil || *st.Result != "first" || st.Reason == nil || *st.Reason != "four_in_a_row" || st.Plies != 7 || st.MyColor != "yellow" {
		t.Errorf("final state %+v (my_color %q)", st.Summary, st.MyColor)
	}
	if got := st.Moves; len(got) != 7 || got[0] != "d" || got[3] != "c" {
		t.Errorf("moves %q", got)
	}
}

// An unknown game is refused by the tools at once, naming the games.
func TestUnknownGameNamesTheGames(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	a := startAgent(t, r.URL(), "mcp-unknown")
	for _, tool := range []string{"challenge", "open_challenges"} {
		rf := refused(t, r, a, tool, map[string]any{"game": "connect-four"}, mcpseat.RuleBadArgument)
		for _, k := range match.GameKinds() {
			if !strings.Contains(rf.Reason, k) {
				t.Errorf("%s: the refusal %q does not name %s", tool, rf.Reason, k)
			}
		}
	}
}

package play

import (
	"context"
	"strings"
	"testing"

	"vesper/match"
)

// The built-in engine plays every game the fold plays, and declines a
// game it has no search for instead of searching it as chess.
func TestBuiltinGames(t *testing.T) {
	b := &Builtin{Limits: Limits{Nodes: 500}}
	for _, g := range match.Games() {
		c := b.Choose(context.Background(), Request{Game: g.Kind})
		if c.Kind != "" || c.Answer.Move == "" {
			t.Errorf("%s from the start: %+v", g.Kind, c)
		}
	}
	c := b.Choose(context.Background(), Request{Game: "go", Moves: []string{"e2e4"}})
	if c.Kind != KindFailed || !strings.Contains(c.Why, `"go"`) {
		t.Errorf("a game of go: %+v, want failed naming the game", c)
	}
}

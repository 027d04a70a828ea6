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

// TestScoreIsTheMovers: an offer question on the opponent's turn gets the
// engine's score of the opponent's position, turned to the mover's view.
func TestScoreIsTheMovers(t *testing.T) {
	cp := 300
	for _, tc := range []struct {
		ply  int
		role string
		want int
	}{{1, "first", 300}, {2, "second", 300}, {2, "first", -300}, {3, "second", -300}} {
		if got := *mine(Request{Ply: tc.ply, Role: tc.role}, &cp); got != tc.want {
			t.Errorf("ply %d as %s: %d, want %d", tc.ply, tc.role, got, tc.want)
		}
	}
}

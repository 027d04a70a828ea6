package daemon

import (
	"strings"
	"testing"
	"time"

	"vesper/match"
)

// The house plays every game the fold plays, and a game without a search
// is an error, not a chess game.
func TestChooseMoveByGame(t *testing.T) {
	n := &Daemon{think: 50 * time.Millisecond}
	for _, g := range match.Games() {
		if mv, err := n.chooseMove(&match.State{Kind: g.Kind}); err != nil || mv == "" {
			t.Errorf("%s from the start: %q, %v", g.Kind, mv, err)
		}
	}
	if mv, err := n.chooseMove(&match.State{Kind: "go", Moves: []string{"e2e4"}}); err == nil || !strings.Contains(err.Error(), `"go"`) {
		t.Errorf("a game of go: %q, %v; want an error naming the game", mv, err)
	}
}

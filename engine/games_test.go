package engine

import (
	"strings"
	"testing"

	"vesper/match"
)

// Every game the fold plays has a search, and its move is legal there.
func TestEveryGameHasASearch(t *testing.T) {
	for _, g := range match.Games() {
		if !Plays(g.Kind) {
			t.Errorf("no search for %s", g.Kind)
			continue
		}
		mv, err := BestMove(g.Kind, nil, Limits{Nodes: 2000})
		if err != nil {
			t.Errorf("BestMove(%s, start) = %v", g.Kind, err)
			continue
		}
		if _, err := g.New().Play(mv); err != nil {
			t.Errorf("BestMove(%s, start) = %q, which the fold refuses: %v", g.Kind, mv, err)
		}
	}
}

func TestBestMoveUnknownGame(t *testing.T) {
	if Plays("go") {
		t.Error(`Plays("go") = true`)
	}
	// e2e4 is a chess move: an unknown game must not be searched as chess.
	if mv, err := BestMove("go", []string{"e2e4"}, Limits{Nodes: 100}); err == nil || !strings.Contains(err.Error(), `"go"`) {
		t.Errorf(`BestMove("go") = %q, %v; want an error naming the game`, mv, err)
	}
}

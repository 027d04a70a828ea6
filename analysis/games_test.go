package analysis

import (
	"context"
	"strings"
	"testing"

	"vesper/match"
)

// Every game the fold plays has a grader and an engine to name.
func TestEveryGameHasAGrader(t *testing.T) {
	for _, g := range match.Games() {
		if !Grades(g.Kind) {
			t.Errorf("no grader for %s", g.Kind)
		}
	}
}

// A game without a grader is not analysed, with a reason that names it,
// and its failed record names no engine rather than the chess engine.
func TestUnknownGameIsNotGradedAsChess(t *testing.T) {
	a, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	st := &match.State{Match: "m", Kind: "go", Over: true, Moves: []string{"e2e4"}}
	g, err := a.Analyse(context.Background(), st)
	if err == nil || !strings.Contains(err.Error(), `"go"`) {
		t.Fatalf("Analyse(go) = %+v, %v; want an error naming the game", g, err)
	}
	if f := a.Failed(st, err); f.Engine != (Engine{}) || f.Game != "go" {
		t.Errorf("Failed(go) = %+v, want no engine", f)
	}
}

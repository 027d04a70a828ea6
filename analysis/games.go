package analysis

import (
	"context"

	"vesper/match"
	"vesper/nostr"
)

// A grader grades the finished games of one game kind, and names the
// engine whose grades they are.
type grader struct {
	grade  func(a *Analyser, ctx context.Context, st *match.State) (*Game, error)
	engine func(a *Analyser) Engine
}

// graders are keyed by the challenge's game token. A game the fold plays
// and this table lacks is not analysed (Analyse says why), never graded
// as chess.
var graders = map[string]grader{
	nostr.GameChess: {grade: (*Analyser).gradeChess, engine: (*Analyser).Engine},
	nostr.GameGomoku: {
		grade:  func(_ *Analyser, _ context.Context, st *match.State) (*Game, error) { return gradeGomoku(st) },
		engine: func(*Analyser) Engine { return gomokuEngine },
	},
	nostr.GameConnect4: {
		grade:  (*Analyser).gradeConnect4,
		engine: func(a *Analyser) Engine { return connect4Engine(a.opts.SolverNodes) },
	},
}

// Grades reports whether this package grades games of kind.
func Grades(kind string) bool {
	_, ok := graders[kind]
	return ok
}

// GradedKinds are the games this package grades, in match.Games' order.
func GradedKinds() []string {
	var out []string
	for _, k := range match.GameKinds() {
		if Grades(k) {
			out = append(out, k)
		}
	}
	return out
}

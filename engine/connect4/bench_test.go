package connect4

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// benchGames are positions from games the engine plays against itself at
// a small budget after four random openings moves, the kind of games
// grading sees: every position before each move, over or not.
func benchGames(n int) [][]Position {
	var out [][]Position
	for seed := range uint64(n) {
		rng := rand.New(rand.NewPCG(seed, 7))
		var p Position
		var game []Position
		var moves []string
		for p.Over() == "" {
			game = append(game, p)
			var c int
			if p.moves < 4 {
				c = randomPlayer(rng, p)
			} else {
				mv, _ := Best(moves, Limits{Nodes: 3000})
				c, _ = ParseColumn(mv)
			}
			p.Play(c)
			moves = append(moves, ColumnName(c))
		}
		out = append(out, game)
	}
	return out
}

// BenchmarkSolveGame grades the way package analysis does: every position
// of a game in turn, one solver per game, DefaultBudget each. It reports
// positions per second, the share solved exactly, the most plies from
// the end of its game at which every position of every game was solved,
// and the most empty cells at which every position was.
//
//	go test -run '^$' -bench SolveGame -benchtime 1x ./engine/connect4/
func BenchmarkSolveGame(b *testing.B) {
	games := benchGames(8)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		positions, solved := 0, 0
		exactFrom := Cells  // the plies from the end from which all were solved
		exactEmpty := Cells // the empty cells from which all were solved
		for _, g := range games {
			s := NewSolver()
			for i, p := range g {
				v, _ := s.Solve(p, 0)
				positions++
				if v != Unknown {
					solved++
				} else {
					exactFrom = min(exactFrom, len(g)-i-1)
					exactEmpty = min(exactEmpty, Cells-p.moves-1)
				}
			}
		}
		el := time.Since(start).Seconds()
		b.ReportMetric(float64(positions)/el, "positions/s")
		b.ReportMetric(100*float64(solved)/float64(positions), "%solved")
		b.ReportMetric(float64(exactFrom), "exact-plies-from-end")
		b.ReportMetric(float64(exactEmpty), "exact-empty-cells")
	}
}

// BenchmarkSolveEmpties solves positions with k empty cells from those
// games, each with a fresh solver and DefaultBudget, and reports the share
// solved and the nodes per second.
//
//	go test -run '^$' -bench SolveEmpties -benchtime 1x ./engine/connect4/
func BenchmarkSolveEmpties(b *testing.B) {
	games := benchGames(8)
	for _, k := range []int{12, 18, 24, 30, 36} {
		b.Run(fmt.Sprintf("empty=%d", k), func(b *testing.B) {
			for range b.N {
				start := time.Now()
				var nodes int64
				n, solved := 0, 0
				for _, g := range games {
					i := Cells - k
					if i >= len(g) {
						continue
					}
					v, nn := NewSolver().Solve(g[i], 0)
					nodes += nn
					n++
					if v != Unknown {
						solved++
					}
				}
				b.ReportMetric(float64(nodes)/time.Since(start).Seconds(), "nodes/s")
				b.ReportMetric(float64(solved), "solved")
				b.ReportMetric(float64(n), "positions")
			}
		})
	}
}

// BenchmarkBest is one move of the player at its default budget from a
// middle-game position of the engine's own games.
//
//	go test -run '^$' -bench Best -benchtime 5x ./engine/connect4/
func BenchmarkBest(b *testing.B) {
	p := benchGames(1)[0][8]
	b.ResetTimer()
	for range b.N {
		choose(p, Limits{})
	}
	b.ReportMetric(float64(DefaultNodes*int64(b.N))/b.Elapsed().Seconds(), "nodes/s")
}

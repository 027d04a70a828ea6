package analysis

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"vesper/engine"
	"vesper/match/chessjs"
)

// benchGame is a 40-move game (80 plies) the built-in engine plays against
// itself at small, unequal node budgets: deterministic, and a real game
// with its mistakes rather than a book line.
func benchGame(b *testing.B) []string {
	b.Helper()
	g := chessjs.NewGame()
	var moves []string
	for len(moves) < 80 && !g.Outcome().Over {
		nodes := int64(3000)
		if len(moves)%2 == 1 {
			nodes = 5000
		}
		mv, err := engine.BestChessMove("", moves, engine.Limits{Nodes: nodes})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := g.Move(mv); err != nil {
			b.Fatal(err)
		}
		moves = append(moves, mv)
	}
	return moves
}

// BenchmarkGame is the time to analyse one 40-move game, engine already
// running (as the daemon keeps it), with Stockfish at depth 12 and with
// the built-in engine at its default node budget: both engines search on
// one thread, so this is the cost on one core.
func BenchmarkGame(b *testing.B) {
	moves := benchGame(b)
	st := finished(b, "chess", moves)
	run := func(b *testing.B, opts Options) {
		a, err := New(opts)
		if err != nil {
			b.Fatal(err)
		}
		defer a.Close()
		if _, err := a.Analyse(b.Context(), st); err != nil { // start the engine
			b.Fatal(err)
		}
		b.ResetTimer()
		times := make([]float64, 0, b.N)
		cpus := make([]float64, 0, b.N)
		for range b.N {
			t0, c0 := time.Now(), cpuSeconds(b, a.eng.pid)
			if _, err := a.Analyse(b.Context(), st); err != nil {
				b.Fatal(err)
			}
			times = append(times, time.Since(t0).Seconds())
			cpus = append(cpus, cpuSeconds(b, a.eng.pid)-c0)
		}
		// Medians, not means: the machine is shared, and one run that
		// waited for the CPU should not move the figure. The CPU time (the
		// engine's and ours) is what a game costs a core whatever else runs.
		slices.Sort(times)
		slices.Sort(cpus)
		b.ReportMetric(float64(len(moves)), "plies")
		b.ReportMetric(times[len(times)/2], "s/game")
		b.ReportMetric(cpus[len(cpus)/2], "cpu-s/game")
		b.ReportMetric(3600/cpus[len(cpus)/2], "games/core-h")
	}
	b.Run("stockfish-depth12", func(b *testing.B) {
		path, err := FindStockfish("")
		if err != nil {
			b.Skip(err)
		}
		run(b, Options{Path: path, Depth: DefaultDepth})
	})
	b.Run("builtin-default", func(b *testing.B) {
		run(b, Options{})
	})
}

// cpuSeconds is the CPU time used so far by this process and, when pid is
// not 0, by that process (from /proc: utime and stime, in clock ticks of
// 1/100 s, Linux's USER_HZ).
func cpuSeconds(b *testing.B, pid int) float64 {
	b.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	t := float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
	if pid == 0 {
		return t
	}
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	s := string(raw)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	utime, err1 := strconv.ParseFloat(f[14-3], 64)
	stime, err2 := strconv.ParseFloat(f[15-3], 64)
	if err1 != nil || err2 != nil {
		b.Fatalf("%s: %v %v", raw, err1, err2)
	}
	return t + (utime+stime)/100
}

package analysis_test

import (
	"context"
	"fmt"
	"os"

	"vesper/analysis"
	"vesper/internal/testkit"
	"vesper/match"
)

// A finished gomoku game needs no engine: each move is graded by the
// exact threat check, or left unknown.
func ExampleAnalyse() {
	black, white := testkit.Key("black"), testkit.Key("white")
	m := testkit.NewMatch(black, white, "gomoku", "", 1_750_000_000)
	m.Accept(1_750_000_001)
	// Black's open three h8-j8 is left alone by White's a3: k8 makes an
	// open four, and White's a4 cannot stop the five.
	m.Play([]string{"h8", "a1", "i8", "a2", "j8", "a3", "k8", "a4", "l8"}, 1_750_000_002, 1)
	st, err := match.Fold(m.ID, m.Events, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	g, err := analysis.Analyse(context.Background(), st, analysis.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, mv := range g.Moves {
		if mv.Tag != analysis.TagUnknown {
			fmt.Println(mv.Ply, mv.Side, mv.Move, mv.Tag, mv.Best)
		}
	}
	// Output:
	// 6 white a3 blunder g8
	// 9 black l8 best
}

// A daemon keeps one Analyser, with Stockfish when it is installed, and
// grades one finished game at a time in the background.
func ExampleAnalyser() {
	opts := analysis.Options{Nice: 10} // the built-in engine, unless:
	if path, err := analysis.FindStockfish(""); err == nil {
		opts.Path = path // depth 12 by default
	}
	a, err := analysis.New(opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer a.Close()
	var finished *match.State // a final match, folded from the store
	if finished == nil {
		return
	}
	g, err := a.Analyse(context.Background(), finished)
	if err != nil {
		g = a.Failed(finished, err) // stored as failed: pages show no analysis
	}
	os.Stdout.Write(analysis.Marshal(g))
}

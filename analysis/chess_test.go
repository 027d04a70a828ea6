package analysis

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"vesper/internal/testkit"
)

// Test depths are shallow to keep the suite fast: a mate in one is found
// at any depth.
const (
	testDepth = 8
	testNodes = 20_000
)

// eachEngine runs f with Stockfish (skipped when it is not installed; CI
// installs it) and with the built-in engine.
func eachEngine(t *testing.T, f func(t *testing.T, opts Options)) {
	t.Run("stockfish", func(t *testing.T) {
		path, err := FindStockfish("")
		if err != nil {
			t.Skip(err)
		}
		f(t, Options{Path: path, Depth: testDepth})
	})
	t.Run("builtin", func(t *testing.T) {
		f(t, Options{Nodes: testNodes})
	})
}

func analyse(t *testing.T, opts Options, moves []string) *Game {
	t.Helper()
	g, err := Analyse(t.Context(), finished(t, "chess", moves), opts)
	if err != nil {
		t.Fatal(err)
	}
	checkBestIsFree(t, g)
	return g
}

// checkBestIsFree: whenever a move is the engine's own best, it has loss
// 0, accuracy 100 and the tag best.
func checkBestIsFree(t *testing.T, g *Game) {
	t.Helper()
	for _, m := range g.Moves {
		if m.Move == m.Best && (m.Loss != 0 || m.Tag != TagBest || m.Accuracy != 100) {
			t.Errorf("ply %d %s is the engine's best but has loss %d, accuracy %v, tag %s", m.Ply, m.Move, m.Loss, m.Accuracy, m.Tag)
		}
	}
}

// The Scholar's mate: 3.Qh5 Nf6?? lets 4.Qxf7# in.
var scholar = []string{"e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6"}

// TestScholarsMate: 3...Nf6 walks into a mate in one (a blunder), and
// 4.Qxf7# is the engine's best move (loss 0, tag best), ending the game on
// a checkmate that no engine is asked about.
func TestScholarsMate(t *testing.T) {
	eachEngine(t, func(t *testing.T, opts Options) {
		g := analyse(t, opts, append(scholar[:len(scholar):len(scholar)], "h5f7"))
		if len(g.Moves) != 7 || g.Status != StatusDone {
			t.Fatalf("%d moves, status %s", len(g.Moves), g.Status)
		}
		nf6, mate := g.Moves[5], g.Moves[6]
		if nf6.Move != "Nf6" || nf6.Tag != TagBlunder || nf6.Best == "Nf6" || nf6.After.Mate != 1 {
			t.Errorf("3...Nf6: %+v, want a blunder allowing mate in 1", nf6)
		}
		if mate.Move != "Qxf7#" || mate.Best != "Qxf7#" || mate.Tag != TagBest || mate.Loss != 0 {
			t.Errorf("4.Qxf7#: %+v, want the engine's best with loss 0", mate)
		}
		if mate.Before.Mate != 1 || *mate.After != (Eval{CP: MateCP, End: "checkmate"}) {
			t.Errorf("4.Qxf7#: before %+v after %+v", *mate.Before, *mate.After)
		}
		if got := g.Players[1].Counts[TagBlunder]; got < 1 {
			t.Errorf("black has %d blunders", got)
		}
		if g.Players[0].Side != "white" || g.Players[1].Side != "black" || g.Players[0].Moves != 4 || g.Players[1].Moves != 3 {
			t.Errorf("players %+v", g.Players)
		}
	})
}

// TestMissedMateInOne: 4.Qf3 instead of 4.Qxf7# misses a mate in one, a
// blunder whatever the evaluation after it (issue 18).
func TestMissedMateInOne(t *testing.T) {
	eachEngine(t, func(t *testing.T, opts Options) {
		g := analyse(t, opts, append(scholar[:len(scholar):len(scholar)], "h5f3"))
		qf3 := g.Moves[6]
		if qf3.Move != "Qf3" || qf3.Best != "Qxf7#" || qf3.Tag != TagBlunder || qf3.Before.Mate != 1 || qf3.Loss <= 0 {
			t.Errorf("4.Qf3: %+v, want a blunder that missed Qxf7#", qf3)
		}
		if g.Players[0].Counts[TagBlunder] < 1 || g.Players[0].ACPL <= 0 {
			t.Errorf("white: %+v", g.Players[0])
		}
	})
}

// TestFoolsMate: 2.g4?? allows Qh4#, which Black finds.
func TestFoolsMate(t *testing.T) {
	eachEngine(t, func(t *testing.T, opts Options) {
		g := analyse(t, opts, []string{"f2f3", "e7e5", "g2g4", "d8h4"})
		if g4 := g.Moves[2]; g4.Tag != TagBlunder || g4.After.Mate != -1 {
			t.Errorf("2.g4: %+v", g4)
		}
		if qh4 := g.Moves[3]; qh4.Move != "Qh4#" || qh4.Tag != TagBest || qh4.After.End != "checkmate" || qh4.After.CP != -MateCP {
			t.Errorf("2...Qh4#: %+v", qh4)
		}
		if g.Players[1].Accuracy < g.Players[0].Accuracy {
			t.Errorf("accuracy white %v, black %v: the side that mated should be the more accurate", g.Players[0].Accuracy, g.Players[1].Accuracy)
		}
	})
}

// TestDeterministic: the same game twice gives the same bytes, and a game
// analysed after another equals the same game analysed first (ucinewgame
// and a cleared hash between games). Stockfish runs at the default depth
// 12, the one deterministic check at full depth; the game is short.
func TestDeterministic(t *testing.T) {
	testkit.QuickLoopSkips(t)
	eachEngine(t, func(t *testing.T, opts Options) {
		if opts.Path != "" {
			opts.Depth = DefaultDepth
		}
		game := append(scholar[:len(scholar):len(scholar)], "h5f3", "d7d5")
		other := finished(t, "chess", []string{"d2d4", "d7d5", "c2c4", "e7e6", "b1c3"})
		st := finished(t, "chess", game)
		a, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		first, err := a.Analyse(t.Context(), st)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Analyse(t.Context(), other); err != nil {
			t.Fatal(err)
		}
		again, err := a.Analyse(t.Context(), st)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := Analyse(context.Background(), st, opts)
		if err != nil {
			t.Fatal(err)
		}
		want := Marshal(first)
		for name, g := range map[string]*Game{"after another game": again, "by a new engine": fresh} {
			if got := Marshal(g); !bytes.Equal(got, want) {
				t.Errorf("%s:\n%s\nwant\n%s", name, got, want)
			}
		}
		if opts.Path != "" && (first.Engine.Depth != DefaultDepth || !strings.HasPrefix(first.Engine.Name, "Stockfish") || first.Engine.Version == "") {
			t.Errorf("engine %+v", first.Engine)
		}
		t.Logf("engine %+v", first.Engine)
	})
}

// TestNoMoves: a game resigned before any move has nothing to grade and
// starts no engine.
func TestNoMoves(t *testing.T) {
	g, err := Analyse(t.Context(), finished(t, "chess", nil), Options{Path: "/nonexistent/engine"})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Moves) != 0 || len(g.Players) != 2 || g.Players[0].Moves != 0 {
		t.Errorf("%s", Marshal(g))
	}
}

// TestNotOver: a game in progress is refused.
func TestNotOver(t *testing.T) {
	st := finished(t, "chess", []string{"e2e4"})
	st.Over = false
	if _, err := Analyse(t.Context(), st, Options{}); err != ErrNotOver {
		t.Errorf("err %v, want ErrNotOver", err)
	}
}

// TestMarshalRoundTrip: Parse reads what Marshal wrote, and marshalling
// that again gives the same bytes.
func TestMarshalRoundTrip(t *testing.T) {
	g := analyse(t, Options{Nodes: testNodes}, []string{"f2f3", "e7e5", "g2g4", "d8h4"})
	b := Marshal(g)
	back, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if again := Marshal(back); !bytes.Equal(again, b) {
		t.Errorf("round trip:\n%s\n%s", again, b)
	}
	if _, err := Parse([]byte(`{"format":99}`)); err == nil {
		t.Error("a future format parsed")
	}
	if !bytes.HasSuffix(b, []byte("}\n")) || bytes.Count(b, []byte("\n")) != 1 {
		t.Errorf("not one line: %q", b)
	}
}

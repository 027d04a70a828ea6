package analysis

import (
	"fmt"
	"math"
	"testing"
)

// TestWinPercent checks lila's Win% (scalachess chess/eval/WinPercent.scala:
// 50 + 50·winningChances(cp.ceiled), MULTIPLIER −0.00368208, Cp.CEILING
// 1000). The figures were computed separately (Python, the same formula in
// double precision); the cap makes 2000 cp and a mate read as 1000 cp.
func TestWinPercent(t *testing.T) {
	for _, tt := range []struct {
		cp   int
		want float64
	}{
		{0, 50},
		{15, 51.380429102931544}, // lila's Cp.initial
		{100, 59.10258971916128},
		{-100, 40.89741028083871},
		{300, 75.11255009383484},
		{-300, 24.88744990616516},
		{1000, 97.54474363414323},
		{2000, 97.54474363414323},
		{-5000, 2.4552563658567763},
		{MateCP, 97.54474363414323},
	} {
		if got := WinPercent(tt.cp); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("WinPercent(%d) = %v, want %v", tt.cp, got, tt.want)
		}
	}
}

// TestMoveAccuracy checks lila's AccuracyPercent.fromWinPercents
// (modules/analyse/src/main/AccuracyPercent.scala): 100 without a drop,
// else 103.1668100711649·e^(−0.04354415386753951·drop) − 3.166924740191411
// + 1, clamped to 0..100. Figures computed separately as above.
func TestMoveAccuracy(t *testing.T) {
	for _, tt := range []struct {
		before, after, want float64
	}{
		{50, 50, 100}, // 101 before the clamp: the bonus
		{50, 70, 100}, // a gain is perfect
		{50, 45, 80.81529992041436},
		{50, 40, 64.57982845372067},
		{60, 30, 25.772047746869696},
		{97.5, 2.5, 0}, // negative before the clamp
		{100, 0, 0},
	} {
		if got := MoveAccuracy(tt.before, tt.after); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("MoveAccuracy(%v, %v) = %v, want %v", tt.before, tt.after, got, tt.want)
		}
	}
}

// lilaGame runs gameAccuracy the way lila's gameAccuracy(startColor, cps)
// does: cps are White's evaluations after each move, and the start position
// is Cp.initial (15).
func lilaGame(cps []int) (first, second float64) {
	wins := []float64{WinPercent(15)}
	for _, cp := range cps {
		wins = append(wins, WinPercent(cp))
	}
	acc := make([]float64, len(cps))
	for i := range cps {
		// wins are White's, and White moves at even i; Black's Win% is
		// the rest of 100.
		acc[i] = MoveAccuracy(wins[i], wins[i+1])
		if i%2 == 1 {
			acc[i] = MoveAccuracy(100-wins[i], 100-wins[i+1])
		}
	}
	return gameAccuracy(wins, acc)
}

func repeat(n int, cps ...int) []int {
	var out []int
	for range n {
		out = append(out, cps...)
	}
	return out
}

// TestGameAccuracyLila runs the cases of lila's AccuracyPercentTest.scala
// ("game accuracy", White moving first) with its tolerances.
func TestGameAccuracyLila(t *testing.T) {
	for _, tt := range []struct {
		name        string
		cps         []int
		white, wTol float64
		black, bTol float64
	}{
		{name: "two good moves", cps: []int{15, 15}, white: 100, wTol: 1, black: 100, bTol: 1},
		{name: "white blunders on first move", cps: []int{-900, -900}, white: 10, wTol: 5, black: 100, bTol: 1},
		{name: "black blunders on first move", cps: []int{15, 900}, white: 100, wTol: 1, black: 10, bTol: 5},
		{name: "both blunder on first move", cps: []int{-900, 0}, white: 10, wTol: 5, black: 10, bTol: 5},
		{name: "20 perfect moves", cps: repeat(20, 15), white: 100, wTol: 1, black: 100, bTol: 1},
		{name: "20 perfect moves and a white blunder", cps: append(repeat(20, 15), -900), white: 50, wTol: 5, black: 100, bTol: 1},
		{name: "21 perfect moves and a black blunder", cps: append(repeat(21, 15), 900), white: 100, wTol: 1, black: 50, bTol: 5},
		{name: "5 average moves (65 cpl) on each side", cps: repeat(5, -50, 15), white: 76, wTol: 8, black: 76, bTol: 8},
		{name: "50 average moves (65 cpl) on each side", cps: repeat(50, -50, 15), white: 76, wTol: 8, black: 76, bTol: 8},
		{name: "50 mediocre moves (150 cpl) on each side", cps: repeat(50, -135, 15), white: 54, wTol: 8, black: 54, bTol: 8},
		{name: "50 terrible moves (500 cpl) on each side", cps: repeat(50, -435, 15), white: 20, wTol: 8, black: 20, bTol: 8},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w, b := lilaGame(tt.cps)
			if math.Abs(w-tt.white) > tt.wTol || math.Abs(b-tt.black) > tt.bTol {
				t.Errorf("white %.2f black %.2f, want %v±%v and %v±%v", w, b, tt.white, tt.wTol, tt.black, tt.bTol)
			}
		})
	}
}

// TestGameAccuracyLilaBlackFirst is the "black moves first" half of the
// same test file: lila's cps stay White's, and Black moves at even i.
func TestGameAccuracyLilaBlackFirst(t *testing.T) {
	for _, tt := range []struct {
		name        string
		cps         []int
		black, bTol float64
		white, wTol float64
	}{
		{"two good moves", []int{15, 15}, 100, 1, 100, 1},
		{"black blunders on first move", []int{900, 900}, 10, 5, 100, 1},
		{"white blunders on first move", []int{15, -900}, 100, 1, 10, 5},
		{"both blunder on first move", []int{900, 0}, 10, 5, 10, 5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// gameAccuracy wants the first player's Win%: Black's.
			wins := []float64{100 - WinPercent(15)}
			for _, cp := range tt.cps {
				wins = append(wins, 100-WinPercent(cp))
			}
			acc := make([]float64, len(tt.cps))
			for i := range acc {
				if i%2 == 0 { // Black, whose Win% is wins
					acc[i] = MoveAccuracy(wins[i], wins[i+1])
				} else {
					acc[i] = MoveAccuracy(100-wins[i], 100-wins[i+1])
				}
			}
			b, w := gameAccuracy(wins, acc)
			if math.Abs(b-tt.black) > tt.bTol || math.Abs(w-tt.white) > tt.wTol {
				t.Errorf("black %.2f white %.2f, want %v±%v and %v±%v", b, w, tt.black, tt.bTol, tt.white, tt.wTol)
			}
		})
	}
}

// TestJudge: the tags from the Win% drop thresholds of analysis.go, and
// lila's mate rules (Advice.scala MateAdvice) with issue 18's missed mate
// in one.
func TestJudge(t *testing.T) {
	cp := func(c int) view { return view{cp: c} }
	mate := func(m int) view {
		c := MateCP
		if m < 0 {
			c = -MateCP
		}
		return view{cp: c, mate: m}
	}
	for _, tt := range []struct {
		name          string
		before, after view
		best          bool
		want          Tag
		wantLoss      int
	}{
		{"engine's move, though the next search says less", cp(50), cp(20), true, TagBest, 0},
		{"better than the engine thought", cp(50), cp(80), false, TagBest, 0},
		{"tiny drop", cp(50), cp(40), false, TagGood, 10},
		{"inaccuracy", cp(0), cp(-60), false, TagInaccuracy, 60},
		{"mistake", cp(0), cp(-120), false, TagMistake, 120},
		{"blunder", cp(0), cp(-200), false, TagBlunder, 200},
		{"still winning after dropping a piece: capped at MateCP", cp(2500), cp(1600), false, TagGood, 0},
		{"walks into mate from equality", cp(-20), mate(-3), false, TagBlunder, 980},
		{"walks into mate from -800", cp(-800), mate(-2), false, TagMistake, 200},
		{"walks into mate from -1200", cp(-1200), mate(-2), false, TagInaccuracy, 0},
		{"lets a mate in 3 go for +300", mate(3), cp(300), false, TagBlunder, 700},
		{"lets a mate in 3 go for +800", mate(3), cp(800), false, TagMistake, 200},
		{"lets a mate in 3 go for +1200", mate(3), cp(1200), false, TagInaccuracy, 0},
		{"misses a mate in 1 for +1200 (issue 18)", mate(1), cp(1200), false, TagBlunder, 0},
		{"misses a mate in 1 and gets mated", mate(1), mate(-1), false, TagBlunder, 2000},
		{"a slower mate", mate(3), mate(5), false, TagGood, 0},
		{"mates", mate(1), view{cp: MateCP, won: true}, false, TagBest, 0},
		{"delays being mated", mate(-2), mate(-4), false, TagBest, 0},
		{"hastens being mated", mate(-4), mate(-2), false, TagGood, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			loss, _, _, acc, tag := grade(tt.before, tt.after, tt.best)
			if tag != tt.want || loss != tt.wantLoss {
				t.Errorf("tag %s loss %d, want %s loss %d", tag, loss, tt.want, tt.wantLoss)
			}
			if tag == TagBest && (loss != 0 || acc != 100) {
				t.Errorf("best with loss %d accuracy %v", loss, acc)
			}
		})
	}
}

func TestRound1(t *testing.T) {
	for in, want := range map[float64]string{97.54474: "97.5", 51.38: "51.4", 100: "100", -0.04: "0", 0.05: "0.1", 12.25: "12.3"} {
		if got := fmt.Sprint(round1(in)); got != want {
			t.Errorf("round1(%v) = %s, want %s", in, got, want)
		}
	}
}

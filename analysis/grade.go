package analysis

import "math"

// The grading formulas are lila's (lichess-org/lila, modules/analyse and
// scalachess's chess.eval): Win% from centipawns, move accuracy from the
// Win% drop, and the game accuracy in gameAccuracy. Their constants are
// ChessFormula's, which every chess analysis.json carries.

// Formula holds the constants of the chess grading formulas, written into
// each chess analysis.json ("formula") so that a reader can recompute
// every Win%, accuracy and centipawn loss from the file's evaluations
// alone (docs/ANALYSIS-JSON.md states the formulas around them).
type Formula struct {
	MateCP int `json:"mate_cp"` // the cap on an evaluation; a mate counts as ±MateCP
	// WinK is Win%'s slope: Win% = 50 + 50·(2/(1+e^(−WinK·cp)) − 1).
	WinK float64 `json:"win_k"`
	// A move's accuracy after a Win% drop d > 0:
	// min(max(AccuracyA·e^(−AccuracyB·d) + AccuracyC + AccuracyBonus, 0), 100).
	AccuracyA     float64 `json:"accuracy_a"`
	AccuracyB     float64 `json:"accuracy_b"`
	AccuracyC     float64 `json:"accuracy_c"`
	AccuracyBonus float64 `json:"accuracy_bonus"`
	// The game accuracy's window: moves/WindowDivisor Win% values,
	// clamped to WindowMin..WindowMax; a move's weight is the window's
	// standard deviation clamped to WeightMin..WeightMax.
	WindowDivisor int     `json:"window_divisor"`
	WindowMin     int     `json:"window_min"`
	WindowMax     int     `json:"window_max"`
	WeightMin     float64 `json:"weight_min"`
	WeightMax     float64 `json:"weight_max"`
	// The Win% drops that make a move an inaccuracy, a mistake, a blunder.
	Inaccuracy float64 `json:"inaccuracy"`
	Mistake    float64 `json:"mistake"`
	Blunder    float64 `json:"blunder"`
}

// ChessFormula is the one set of constants the chess grading uses: lila's.
var ChessFormula = Formula{
	MateCP: MateCP, WinK: 0.00368208,
	AccuracyA: 103.1668100711649, AccuracyB: 0.04354415386753951, AccuracyC: -3.166924740191411, AccuracyBonus: 1,
	WindowDivisor: 10, WindowMin: 2, WindowMax: 8, WeightMin: 0.5, WeightMax: 12,
	Inaccuracy: InaccuracyDrop, Mistake: MistakeDrop, Blunder: BlunderDrop,
}

// WinPercent is Lichess's Win% (0-100) of an evaluation in centipawns from
// one side's view: 50 + 50·(2/(1+e^(−0.00368208·cp)) − 1), with cp capped
// at ±MateCP first (scalachess WinPercent.fromCp and Cp.ceiled).
func WinPercent(cp int) float64 {
	c := float64(capCP(cp))
	return 50 + 50*(2/(1+math.Exp(-ChessFormula.WinK*c))-1)
}

// MoveAccuracy is lila's AccuracyPercent.fromWinPercents: 100 when the
// mover's Win% did not drop, else 103.1668·e^(−0.04354·drop) − 3.1669,
// plus lila's 1-point "uncertainty bonus", clamped to 0-100. The constants
// are lila's full-precision curve fit.
func MoveAccuracy(winBefore, winAfter float64) float64 {
	if winAfter >= winBefore {
		return 100
	}
	f := &ChessFormula
	drop := winBefore - winAfter
	raw := f.AccuracyA*math.Exp(-f.AccuracyB*drop) + f.AccuracyC + f.AccuracyBonus
	return min(max(raw, 0), 100)
}

func capCP(cp int) int { return min(max(cp, -MateCP), MateCP) }

// view is an evaluation from the mover's side.
type view struct {
	cp   int  // centipawns (±MateCP for a mate or a checkmate)
	mate int  // > 0: the mover mates in mate; < 0: the mover is mated; 0: no mate
	won  bool // the position is checkmate, given by the mover
}

func viewOf(e Eval, white bool) view {
	sign := 1
	if !white {
		sign = -1
	}
	v := view{cp: sign * e.CP, mate: sign * e.Mate}
	if e.End == endCheckmate {
		v.mate, v.won = 0, v.cp > 0
	}
	return v
}

const endCheckmate = "checkmate"

// capped is the centipawn figure Win% and losses use: a mate is ±MateCP.
func (v view) capped() int {
	switch {
	case v.mate > 0:
		return MateCP
	case v.mate < 0:
		return -MateCP
	}
	return capCP(v.cp)
}

// rank orders evaluations for the mover, best highest: a given mate, then
// shorter mates, then centipawns, then the longest of being mated.
func (v view) rank() int {
	const mateRank = 1 << 30
	switch {
	case v.won:
		return mateRank
	case v.mate > 0:
		return mateRank - v.mate
	case v.mate < 0:
		return -mateRank - v.mate
	}
	return v.cp
}

func (v view) hasMate() bool { return v.mate != 0 || v.won }

// grade is a chess move's figures from the evaluations before and after
// it (mover's side) and whether it is the engine's best move.
func grade(before, after view, best bool) (loss int, winBefore, winAfter, accuracy float64, tag Tag) {
	if best || after.rank() >= before.rank() {
		// No worse than the engine's choice: for the choice itself the
		// position before already holds its value.
		if best {
			after = before
		}
		wb, wa := WinPercent(before.capped()), WinPercent(after.capped())
		return 0, wb, wa, MoveAccuracy(wb, wa), TagBest
	}
	loss = max(0, before.capped()-after.capped())
	winBefore, winAfter = WinPercent(before.capped()), WinPercent(after.capped())
	return loss, winBefore, winAfter, MoveAccuracy(winBefore, winAfter), judge(before, after, winBefore-winAfter)
}

// judge tags a move worse than the engine's. Without mates it is the Win%
// drop against the thresholds; with one it is lila's Advice.MateAdvice:
// walking into a forced mate (MateCreated) or letting one go (MateLost) is a
// blunder unless the position was already lost (won) past -700/-999
// (+700/+999) centipawns, and a slower mate is fine. One rule is stricter
// than lila: a missed mate in one is always a blunder (issue 18).
func judge(before, after view, drop float64) Tag {
	if !before.hasMate() && !after.hasMate() {
		switch {
		case drop >= BlunderDrop:
			return TagBlunder
		case drop >= MistakeDrop:
			return TagMistake
		case drop >= InaccuracyDrop:
			return TagInaccuracy
		}
		return TagGood
	}
	switch {
	case !before.hasMate() && after.mate < 0: // MateCreated
		switch {
		case before.cp < -999:
			return TagInaccuracy
		case before.cp < -700:
			return TagMistake
		}
		return TagBlunder
	case before.mate > 0 && (!after.hasMate() || after.mate < 0): // MateLost
		if before.mate == 1 {
			return TagBlunder
		}
		next := 0 // lila reads a mate's missing cp as 0
		if !after.hasMate() {
			next = after.cp
		}
		switch {
		case next > 999:
			return TagInaccuracy
		case next > 700:
			return TagMistake
		}
		return TagBlunder
	}
	return TagGood
}

// gameAccuracy is lila's AccuracyPercent.gameAccuracy for each side: the
// mean of a volatility-weighted mean and the harmonic mean of the side's
// move accuracies. wins are White's Win% of every position, the start
// first (len(acc)+1 of them); acc[i] is move i's accuracy, even i for the
// first player. A move's weight is the standard deviation of the Win% in a
// window around it (size len/10 clamped to 2..8), clamped to 0.5..12, so
// moves in sharp phases count more. The one difference from lila: lila
// takes 15 cp for the start position, here it is evaluated like the rest,
// and the accuracies are the moves' own (a best move's is 100).
func gameAccuracy(wins, acc []float64) (first, second float64) {
	if len(acc) == 0 || len(wins) != len(acc)+1 {
		return 0, 0
	}
	f := &ChessFormula
	size := min(max(len(acc)/f.WindowDivisor, f.WindowMin), f.WindowMax)
	var windows [][]float64
	for range min(size, len(wins)) - 2 {
		windows = append(windows, wins[:min(size, len(wins))])
	}
	if len(wins) <= size {
		windows = append(windows, wins)
	} else {
		for i := 0; i+size <= len(wins); i++ {
			windows = append(windows, wins[i:i+size])
		}
	}
	var sum [2]struct{ weighted, weights, inverse float64 }
	var n [2]int
	for i, a := range acc {
		if i >= len(windows) {
			break
		}
		w := min(max(stddev(windows[i]), f.WeightMin), f.WeightMax)
		s := &sum[i%2]
		s.weighted += a * w
		s.weights += w
		s.inverse += 1 / max(1, a)
		n[i%2]++
	}
	side := func(k int) float64 {
		if n[k] == 0 || sum[k].weights == 0 {
			return 0
		}
		return (sum[k].weighted/sum[k].weights + float64(n[k])/sum[k].inverse) / 2
	}
	return side(0), side(1)
}

// stddev is the population standard deviation, as lila's Maths.
func stddev(xs []float64) float64 {
	mean := 0.0
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	v := 0.0
	for _, x := range xs {
		v += (x - mean) * (x - mean)
	}
	return math.Sqrt(v / float64(len(xs)))
}

// round1 is the one-decimal rounding analysis.json uses for every figure;
// adding 0 turns a negative zero into zero.
func round1(x float64) float64 { return math.Round(x*10)/10 + 0 }

package site

import (
	"math"

	"vesper/analysis"
	"vesper/match"
	"vesper/nostr"
)

// The analyses of the test worlds are made here the way the analysis
// package describes them (Win% on Lichess's curve, its move accuracy, the
// thresholds), so that pages show plausible figures. The site never
// computes these: it shows what it is given.

// testPly is one graded ply of a test analysis: the evaluation after it
// (White's side; nil: the game ended, nothing to evaluate), the engine's
// best move, and the tag ("" computes it from the Win% drop).
type testPly struct {
	after *analysis.Eval
	best  string
	tag   analysis.Tag
}

func cp(n int) *analysis.Eval { return &analysis.Eval{CP: n} }

// mate is a forced mate in n (negative: Black mates), CP ±MateCP.
func mate(n int) *analysis.Eval {
	c := analysis.MateCP
	if n < 0 {
		c = -c
	}
	return &analysis.Eval{CP: c, Mate: n}
}

// mated is the final position of a checkmate, won by White (1) or Black
// (-1).
func mated(side int) *analysis.Eval {
	return &analysis.Eval{CP: side * analysis.MateCP, End: "checkmate"}
}

// whiteWinOf is White's Win% for an evaluation.
func whiteWinOf(e *analysis.Eval) float64 {
	switch {
	case e.Mate > 0 || e.End == "checkmate" && e.CP > 0:
		return 100
	case e.Mate < 0 || e.End == "checkmate" && e.CP < 0:
		return 0
	}
	return 50 + 50*(2/(1+math.Exp(-0.00368208*float64(whiteCP(e))))-1)
}

// whiteCP caps an evaluation at MateCP, for the losses.
func whiteCP(e *analysis.Eval) int {
	return max(-analysis.MateCP, min(analysis.MateCP, e.CP))
}

// testAnalysis grades a folded, finished game: start is the evaluation of
// the first position, plies one entry per counted move (chess), or tags
// only (gomoku: evaluations are ignored).
func testAnalysis(s *match.State, start *analysis.Eval, plies []testPly) *analysis.Game {
	var moves []string
	if s.Kind == nostr.GameChess {
		moves = replayChess(s.Moves, "").Moves
	} else {
		moves = replayGomoku(s.Moves, "").Moves
	}
	return testAnalysisOf(s, moves, start, plies)
}

// testAnalysisOf is testAnalysis with the moves as analysis.json names
// them given (the benchmark's games are not replayed for their SAN).
func testAnalysisOf(s *match.State, moves []string, start *analysis.Eval, plies []testPly) *analysis.Game {
	chess := s.Kind == nostr.GameChess
	first, second := "white", "black"
	if !chess {
		first, second = "black", "white"
	}
	g := &analysis.Game{
		Format: analysis.FormatVersion, Match: s.Match, Game: s.Kind, Status: analysis.StatusDone,
		Engine: analysis.Engine{Name: "Stockfish 17", Version: "sf_17 x86-64-bmi2", Depth: 18},
		Players: []analysis.Player{
			{Pubkey: s.First, Side: first, Counts: map[analysis.Tag]int{}},
			{Pubkey: s.Second, Side: second, Counts: map[analysis.Tag]int{}},
		},
	}
	if !chess {
		g.Engine = analysis.Engine{Name: "vesper gomoku threats", Version: "1"}
	}
	before := start
	loss := [2]int{}
	for i, p := range plies {
		side := i % 2
		m := analysis.Move{Ply: i + 1, Move: moves[i], Side: first, Best: p.best, Tag: p.tag}
		if side == 1 {
			m.Side = second
		}
		if chess {
			sign := 1
			if side == 1 {
				sign = -1
			}
			m.Before, m.After = before, p.after
			m.WinBefore = whiteWinOf(before)
			m.WinAfter = m.WinBefore
			if side == 1 {
				m.WinBefore = 100 - m.WinBefore
				m.WinAfter = m.WinBefore
			}
			if p.after != nil {
				m.WinAfter = whiteWinOf(p.after)
				if side == 1 {
					m.WinAfter = 100 - m.WinAfter
				}
				m.Loss = max(0, sign*(whiteCP(before)-whiteCP(p.after)))
				before = p.after
			}
			d := max(0, m.WinBefore-m.WinAfter)
			m.Accuracy = math.Max(0, math.Min(100, 103.1668*math.Exp(-0.04354*d)-3.1669))
			if m.Tag == "" {
				switch {
				case d >= analysis.BlunderDrop:
					m.Tag = analysis.TagBlunder
				case d >= analysis.MistakeDrop:
					m.Tag = analysis.TagMistake
				case d >= analysis.InaccuracyDrop:
					m.Tag = analysis.TagInaccuracy
				case d < 1:
					m.Tag = analysis.TagBest
				default:
					m.Tag = analysis.TagGood
				}
			}
		} else if m.Tag == "" {
			m.Tag = analysis.TagUnknown
		}
		pl := &g.Players[side]
		pl.Moves++
		pl.Counts[m.Tag]++
		pl.Accuracy += m.Accuracy
		loss[side] += m.Loss
		g.Moves = append(g.Moves, m)
	}
	for i := range g.Players {
		p := &g.Players[i]
		if chess && p.Moves > 0 {
			p.Accuracy /= float64(p.Moves)
			p.ACPL = float64(loss[i]) / float64(p.Moves)
		}
	}
	return g
}

// failedAnalysis is what the analysis package publishes when it could not
// grade a game.
func failedAnalysis(s *match.State) *analysis.Game {
	return &analysis.Game{Format: analysis.FormatVersion, Match: s.Match, Game: s.Kind, Status: analysis.StatusFailed,
		Error: "engine exited", Engine: analysis.Engine{Name: "Stockfish 17", Depth: 18}}
}

// gomokuPlies grades n gomoku plies "unknown" but for the ones given.
func gomokuPlies(n int, known map[int]testPly) []testPly {
	out := make([]testPly, n)
	for ply, p := range known {
		out[ply-1] = p
	}
	return out
}

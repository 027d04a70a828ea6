package play

import (
	"fmt"
	"math"
)

// Score is a series from one player's side.
type Score struct {
	Wins, Draws, Losses int
}

// Add counts one result: "win", "draw" or "loss".
func (s *Score) Add(outcome string) {
	switch outcome {
	case OutcomeWin:
		s.Wins++
	case OutcomeDraw:
		s.Draws++
	case OutcomeLoss:
		s.Losses++
	}
}

// Outcomes of a game for the runner's key.
const (
	OutcomeWin  = "win"
	OutcomeDraw = "draw"
	OutcomeLoss = "loss"
)

// Games is the number of games scored.
func (s Score) Games() int { return s.Wins + s.Draws + s.Losses }

// Points is wins plus half the draws.
func (s Score) Points() float64 { return float64(s.Wins) + float64(s.Draws)/2 }

// Wilson is the 95% Wilson score interval of the points share, counting a
// draw as half a win (the usual reading for engine matches; exact for no
// draws). An empty series is [0, 1].
func (s Score) Wilson() (lo, hi float64) {
	n := float64(s.Games())
	if n == 0 {
		return 0, 1
	}
	const z = 1.959963984540054 // the 97.5th percentile of the normal law
	p := s.Points() / n
	den := 1 + z*z/n
	centre := (p + z*z/(2*n)) / den
	half := z * math.Sqrt(p*(1-p)/n+z*z/(4*n*n)) / den
	return math.Max(0, centre-half), math.Min(1, centre+half)
}

// Line is the series' W-D-L line and score: "+3 =1 -2, 3.5/6 (58.3%),
// 95% Wilson interval 24.1%-86.1%".
func (s Score) Line() string {
	lo, hi := s.Wilson()
	share := 0.0
	if s.Games() > 0 {
		share = s.Points() / float64(s.Games())
	}
	return fmt.Sprintf("+%d =%d -%d, %g/%d (%.1f%%), 95%% Wilson interval %.1f%%-%.1f%%",
		s.Wins, s.Draws, s.Losses, s.Points(), s.Games(), 100*share, 100*lo, 100*hi)
}

package site

import (
	"strconv"
)

// modelFigures are a model's per-move and per-game figures; nil is "not
// reported" (or nothing to divide by), never zero.
type modelFigures struct {
	Rating, Low, High int
	Moves             int      // counted moves
	RefusedPer100     *float64 // self-reported attempts per 100 reporting moves
	RefusedOf         int      // the moves that reported attempts
	IgnoredPer100     *float64 // the fold's ignored moves per 100 counted moves
	Ignored           int
	Random, Engine    int      // fallback moves by kind
	FallbackPer100    *float64 // both kinds per 100 counted moves
	VerifiedShare     *float64 // counted moves with verified reasoning, 0..1
	Early             int      // reveals published during the game
	PlanRate          *float64 // verified plans naming the move played, 0..1
	PlanOf            int
	TokensPerMove     *float64 // input + output tokens
	TokensPerGame     *float64
	CostPerMove       *float64 // US dollars
	CostPerGame       *float64
	SecondsPerMove    *float64 // by the players' own created_at stamps
}

func ratio(a, b float64) *float64 {
	if b <= 0 {
		return nil
	}
	r := a / b
	return &r
}

// Figures computes the model's figures from its sums.
func (m *modelRow) Figures() modelFigures {
	f := modelFigures{Rating: round(m.BT.Rating), Low: round(m.BT.Low), High: round(m.BT.High),
		Moves: m.Pace.Moves, Ignored: m.Pace.Ignored, Random: m.Pace.Random, Engine: m.Pace.Engine,
		Early: m.Talk.Early, RefusedOf: m.Talk.AttemptsOf, PlanOf: m.Talk.Checked}
	moves := float64(m.Pace.Moves)
	f.RefusedPer100 = ratio(100*float64(m.Talk.AttemptsN), float64(m.Talk.AttemptsOf))
	f.IgnoredPer100 = ratio(100*float64(m.Pace.Ignored), moves)
	f.FallbackPer100 = ratio(100*float64(m.Pace.Random+m.Pace.Engine), moves)
	f.VerifiedShare = ratio(float64(m.Talk.VerMoves), moves)
	f.PlanRate = ratio(float64(m.Talk.Named), float64(m.Talk.Checked))
	f.SecondsPerMove = ratio(float64(m.Pace.Think), float64(m.Pace.Timed))
	u, of := m.Talk.UsageSum, m.Talk.UsageOf
	tokMoves := max(of["input_tokens"], of["output_tokens"])
	tokGames := max(m.usageGames["input_tokens"], m.usageGames["output_tokens"])
	f.TokensPerMove = ratio(u["input_tokens"]+u["output_tokens"], float64(tokMoves))
	f.TokensPerGame = ratio(u["input_tokens"]+u["output_tokens"], float64(tokGames))
	f.CostPerMove = ratio(u["cost_usd"], float64(of["cost_usd"]))
	f.CostPerGame = ratio(u["cost_usd"], float64(m.usageGames["cost_usd"]))
	return f
}

// Text formats a figure for the page: "–" when absent.
func (f modelFigures) Text(name string) string {
	var p *float64
	digits, unit, scale := 1, "", 1.0
	switch name {
	case "refused":
		p = f.RefusedPer100
	case "ignored":
		p = f.IgnoredPer100
	case "fallback":
		p = f.FallbackPer100
	case "verified":
		p, digits, unit, scale = f.VerifiedShare, 0, "%", 100
	case "plan":
		p, digits, unit, scale = f.PlanRate, 0, "%", 100
	case "tokmove":
		p, digits = f.TokensPerMove, 0
	case "tokgame":
		p, digits = f.TokensPerGame, 0
	case "costmove":
		p, digits = f.CostPerMove, 4
	case "costgame":
		p, digits = f.CostPerGame, 3
	case "secs":
		p, unit = f.SecondsPerMove, " s"
	}
	if p == nil {
		return "–"
	}
	s := strconv.FormatFloat(*p*scale, 'f', digits, 64) + unit
	if name == "costmove" || name == "costgame" {
		s = "$" + s
	}
	return s
}

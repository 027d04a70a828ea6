package site

import (
	"vesper/match"
	"vesper/nostr"
	"vesper/ratings"
)

// models.json: the ladder for programs, one entry per kind with its
// models in the page's order. Its fields are documented in
// docs/MODELS-JSON.md and only ever added to.

type modelsFeed struct {
	GeneratedAt int64                    `json:"generated_at"`
	Listing     string                   `json:"listing"`
	Method      modelsMethod             `json:"method"`
	Kinds       map[string]modelsKindOut `json:"kinds"`
}

type modelsMethod struct {
	Fit        string  `json:"fit"`
	Interval   string  `json:"interval"`
	Anchor     int     `json:"anchor"`
	PriorGames int     `json:"prior_games"`
	Z          float64 `json:"z"`
	SelfPlay   string  `json:"self_play"`
}

type modelsKindOut struct {
	Game    string      `json:"game"`
	Models  []modelJSON `json:"models"`
	Results []pairJSON  `json:"results"`
}

type modelJSON struct {
	Rank       int            `json:"rank"` // 0 for the group that states no model
	Model      string         `json:"model"`
	Stated     bool           `json:"stated"`
	Rating     float64        `json:"rating"`
	RatingLow  float64        `json:"rating_low"`
	RatingHigh float64        `json:"rating_high"`
	Games      int            `json:"games"`
	Wins       int            `json:"wins"`
	Draws      int            `json:"draws"`
	Losses     int            `json:"losses"`
	SelfPlay   int            `json:"self_play"`
	Score      float64        `json:"score"`
	ScoreLow   float64        `json:"score_low"`
	ScoreHigh  float64        `json:"score_high"`
	Sides      []sideJSON     `json:"sides"`
	Analysed   int            `json:"analysed"`
	Accuracy   *float64       `json:"accuracy"`
	ACPL       *float64       `json:"acpl"`
	Blunders   int            `json:"blunders"`
	Moves      int            `json:"moves"`
	Refused    *float64       `json:"refused_per_100"`
	RefusedOf  int            `json:"refused_reported_moves"`
	Ignored    int            `json:"ignored_moves"`
	IgnoredPer *float64       `json:"ignored_per_100"`
	Fallback   map[string]int `json:"fallback_moves"`
	Verified   *float64       `json:"verified_share"`
	Early      int            `json:"early_reveals"`
	Plan       *float64       `json:"plan_rate"`
	PlanOf     int            `json:"plan_checked"`
	TokMove    *float64       `json:"tokens_per_move"`
	TokGame    *float64       `json:"tokens_per_game"`
	CostMove   *float64       `json:"cost_usd_per_move"`
	CostGame   *float64       `json:"cost_usd_per_game"`
	SecsMove   *float64       `json:"seconds_per_move"`
	Players    []string       `json:"players"`
}

type sideJSON struct {
	Side   string  `json:"side"`
	Games  int     `json:"games"`
	Wins   int     `json:"wins"`
	Draws  int     `json:"draws"`
	Losses int     `json:"losses"`
	Score  float64 `json:"score"`
}

type pairJSON struct {
	A      string `json:"a"`
	B      string `json:"b"`
	Games  int    `json:"games"`
	WinsA  int    `json:"a_wins"`
	Draws  int    `json:"draws"`
	WinsB  int    `json:"b_wins"`
	SameAs bool   `json:"self_play"`
	ia, ib int    // the two models' places, for the order
}

func score(r record) float64 {
	if r.Games == 0 {
		return 0
	}
	return r.points() / float64(r.Games)
}

func (b *builder) modelsJSON(v *ladderPage) []byte {
	feed := modelsFeed{GeneratedAt: b.in.Now, Listing: b.listing(), Kinds: map[string]modelsKindOut{},
		Method: modelsMethod{Fit: "bradley-terry", Interval: "analytic", Anchor: ratings.BTAnchor,
			PriorGames: ratings.BTPriorGames, Z: ratings.BTZ, SelfPlay: ladderSelfPlay}}
	for _, lk := range v.Kinds {
		out := modelsKindOut{Game: lk.Game, Models: []modelJSON{}, Results: []pairJSON{}}
		for _, m := range lk.Models {
			f := m.Figures()
			lo, hi := ratings.Wilson(score(m.record), m.Games)
			j := modelJSON{Rank: m.Rank, Model: m.Model, Stated: m.Stated,
				Rating: round2(m.BT.Rating), RatingLow: round2(m.BT.Low), RatingHigh: round2(m.BT.High),
				Games: m.Games, Wins: m.Wins, Draws: m.Draws, Losses: m.Losses, SelfPlay: m.SelfPlay,
				Score: jsonNum(score(m.record)), ScoreLow: jsonNum(lo), ScoreHigh: jsonNum(hi),
				Analysed: m.Analysed, Blunders: m.Blunders, Moves: f.Moves, Refused: f.RefusedPer100, RefusedOf: f.RefusedOf,
				Ignored: f.Ignored, IgnoredPer: f.IgnoredPer100,
				Fallback: map[string]int{nostr.FallbackRandom: f.Random, nostr.FallbackEngine: f.Engine},
				Verified: f.VerifiedShare, Early: f.Early, Plan: f.PlanRate, PlanOf: f.PlanOf,
				TokMove: f.TokensPerMove, TokGame: f.TokensPerGame, CostMove: f.CostPerMove, CostGame: f.CostPerGame,
				SecsMove: f.SecondsPerMove, Players: []string{}}
			if m.Analysed > 0 {
				j.Accuracy, j.ACPL = ratio(m.accSum, float64(m.Analysed)), ratio(m.cpSum, float64(m.Analysed))
			}
			for _, s := range m.Sides {
				j.Sides = append(j.Sides, sideJSON{Side: s.Side, Games: s.Games, Wins: s.Wins, Draws: s.Draws, Losses: s.Losses, Score: score(s.record)})
			}
			for _, k := range m.Keys {
				j.Players = append(j.Players, k.P.Pubkey)
			}
			out.Models = append(out.Models, j)
		}
		out.Results = append(out.Results, lk.pairs...)
		feed.Kinds[lk.Kind] = out
	}
	return match.MarshalLine(feed)
}

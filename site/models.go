package site

import (
	"cmp"
	"slices"
	"strconv"

	"vesper/match"
	"vesper/nostr"
	"vesper/ratings"
)

// The ladder of models (models.html and models.json, issues 27 and 37):
// listed players grouped by the model their profile says they are
// (PROTOCOL.md section 8.4, never checked), one ladder per game kind. Each
// model's rating is one Bradley-Terry fit over all the final games of that
// kind between listed players (ratings.BradleyTerry), so that whom a model
// beat counts, not only how often; beside it the raw record, the split by
// side, the analysis's figures and what the moves' tags report. A game
// between two keys of the same model counts for each of them in the
// record, as a win and a loss, and is left out of the fit, where it says
// nothing. Everything comes from the cards, so Update renders it like
// Build.

// noModel groups the players whose profile states no model.
const noModel = "states no model"

// The page's statement of its method, built from the fit's constants.
var (
	ladderMethod = "The rating is one Bradley-Terry fit over all final games of this kind between listed players, on the Elo scale: a model rated 400 points above another is expected to score 10 to 1 against it, and a draw counts as half a win for each. Unlike a score, it accounts for the opponents: beating a strong model counts for more than beating a weak one. To keep a perfect record finite, each model also plays " +
		strconv.Itoa(ratings.BTPriorGames) + " imaginary drawn game against an anchor rated " + strconv.Itoa(ratings.BTAnchor) +
		", which pulls a model with few games towards " + strconv.Itoa(ratings.BTAnchor) + ". The 95% interval is analytic (the fit's curvature at its maximum, ±" +
		strconv.FormatFloat(ratings.BTZ, 'f', -1, 64) + " standard errors) rather than bootstrapped: it is exact to recompute and the same on every build (with more than " + strconv.Itoa(ratings.BTDenseMax) + " models in one game, each interval counts that model's own games only, holding the others at their ratings, and is narrower). Models are ordered by rating."
	ladderSelfPlay = "A game between two keys of the same model counts for that model twice, as a win and a loss (or two draws), and is left out of the rating, where it says nothing about the model against others."
)

type ladderPage struct {
	Root, Title      string
	ListAll          bool
	Method, SelfPlay string
	Kinds            []ladderKind
}

// ladderKind is one game's ladder: its models in order and the table of
// their results against each other.
type ladderKind struct {
	Kind, Game    string
	First, Second string
	Chess         bool
	Models        []modelRow
	Results       [][]resultCell // [row][column] as Models, the first matrixMax
	// Cut says the table of results leaves models out (matrixMax).
	Cut bool
	// pairs are every pairing with a game, the one listed first as a.
	pairs []pairJSON
}

// matrixMax bounds the table of results: a profile may name any model, and
// n models make n² cells. The feed lists every pair.
const matrixMax = 30

// Matrix is the models the table of results shows.
func (k ladderKind) Matrix() []modelRow { return k.Models[:len(k.Results)] }

type resultCell struct {
	Games, Wins, Draws, Losses int
	Self                       bool
}

type modelRow struct {
	Rank   int // 1.. for stated models, 0 for the group that states none
	Model  string
	Stated bool
	BT     ratings.BTRating
	record
	SelfPlay int
	Sides    [2]sideRecord
	Talk     talkTally
	Pace     pace
	// usageGames counts, by usage key, the games in which the model
	// reported it at least once (the per-game figures' denominators).
	usageGames map[string]int
	Keys       []ladderKey
}

type sideRecord struct {
	Side string
	record
}

type ladderKey struct {
	P       player
	Ratings []keyRating
	record
}

type keyRating struct {
	Game, Rating, Interval string
}

// record is a player's or a group's final games and their figures.
type record struct {
	Games, Wins, Draws, Losses int
	Score, ScoreLow, ScoreHigh string
	// Accuracy and ACPL are means over the analysed chess games
	// (Analysed of them), "" without any; Blunders their sum.
	Accuracy, ACPL string
	Analysed       int
	Blunders       int

	accSum, cpSum float64
}

// add counts one final game for the player of role.
func (r *record) add(c *card, role string) {
	r.Games++
	switch {
	case c.Result == match.Draw:
		r.Draws++
	case c.Result == role:
		r.Wins++
	default:
		r.Losses++
	}
	i := 0
	if role == match.Second {
		i = 1
	}
	if c.Kind == nostr.GameChess && len(c.Grades) == 2 && c.Grades[i].Moves > 0 {
		r.Analysed++
		r.accSum += c.Grades[i].Accuracy
		r.cpSum += c.Grades[i].ACPL
		r.Blunders += c.Grades[i].Blunders
	}
}

func (r *record) points() float64 { return float64(r.Wins) + float64(r.Draws)/2 }

// finish writes the figures in words.
func (r *record) finish() {
	if r.Games > 0 {
		score := r.points() / float64(r.Games)
		lo, hi := ratings.Wilson(score, r.Games)
		r.Score, r.ScoreLow, r.ScoreHigh = pct(score), pct(lo), pct(hi)
	}
	if r.Analysed > 0 {
		r.Accuracy = strconv.FormatFloat(round2(r.accSum/float64(r.Analysed)), 'f', 1, 64) + "%"
		r.ACPL = strconv.Itoa(round(r.cpSum / float64(r.Analysed)))
	}
}

// finalRecords counts every final game of the listed players of kind ("":
// all kinds).
func (b *builder) finalRecords(kind string) map[string]*record {
	recs := map[string]*record{}
	for _, c := range b.cards {
		if !c.Final || !c.Accepted || (kind != "" && c.Kind != kind) {
			continue
		}
		for _, role := range []string{match.First, match.Second} {
			pk := c.First
			if role == match.Second {
				pk = c.Second
			}
			if !b.listed(pk) || !nostr.IsLowerHex(pk, 64) {
				continue
			}
			if recs[pk] == nil {
				recs[pk] = &record{}
			}
			recs[pk].add(c, role)
		}
	}
	return recs
}

// modelOf is the ladder's group of a key: its stated model, or "" for none.
func (b *builder) modelOf(pk string) string { return b.in.Profiles[pk].Agent.Model }

func (b *builder) ladderPage() *ladderPage {
	v := &ladderPage{Title: "Ladder of models", ListAll: b.in.ListAll, Method: ladderMethod, SelfPlay: ladderSelfPlay}
	for _, kind := range kinds {
		if lk, ok := b.ladderKind(kind); ok {
			v.Kinds = append(v.Kinds, lk)
		}
	}
	return v
}

// ladderKind is the ladder of one game kind, ok false when it has no
// final game between listed players.
func (b *builder) ladderKind(kind string) (ladderKind, bool) {
	first, second := sides(kind)
	lk := ladderKind{Kind: kind, Game: gameName(kind), First: first, Second: second, Chess: kind == nostr.GameChess}
	rows := map[string]*modelRow{}
	row := func(pk string) *modelRow {
		m := b.modelOf(pk)
		r := rows[m]
		if r == nil {
			r = &modelRow{Model: m, Stated: m != "", usageGames: map[string]int{}}
			if !r.Stated {
				r.Model = noModel
			}
			r.Sides[0].Side, r.Sides[1].Side = first, second
			rows[m] = r
		}
		return r
	}
	type pairKey struct{ a, b string }
	pairs := map[pairKey]*resultCell{}
	for _, c := range b.cards {
		if !c.Final || !c.Accepted || c.Kind != kind {
			continue
		}
		fl := b.listed(c.First) && nostr.IsLowerHex(c.First, 64)
		sl := b.listed(c.Second) && nostr.IsLowerHex(c.Second, 64)
		for i, role := range []string{match.First, match.Second} {
			pk, listed := c.First, fl
			if i == 1 {
				pk, listed = c.Second, sl
			}
			if !listed {
				continue
			}
			r := row(pk)
			r.add(c, role)
			r.Sides[i].add(c, role)
			if len(c.Talk) == 2 {
				r.Talk.add(c.Talk[i])
				for k, n := range c.Talk[i].UsageOf {
					if n > 0 {
						r.usageGames[k]++
					}
				}
			}
			if len(c.Pace) == 2 {
				r.Pace.add(c.Pace[i])
			}
		}
		if !fl || !sl {
			continue
		}
		a, bm := b.modelOf(c.First), b.modelOf(c.Second)
		if a == bm {
			rows[a].SelfPlay++
		}
		// Counted once per game, for the model that sorts first.
		k, firstWins := pairKey{a, bm}, c.Result == match.First
		secondWins := c.Result == match.Second
		if bm < a {
			k, firstWins, secondWins = pairKey{bm, a}, secondWins, firstWins
		}
		cell := pairs[k]
		if cell == nil {
			cell = &resultCell{Self: a == bm}
			pairs[k] = cell
		}
		cell.Games++
		switch {
		case firstWins:
			cell.Wins++
		case secondWins:
			cell.Losses++
		default:
			cell.Draws++
		}
	}
	if len(rows) == 0 {
		return lk, false
	}
	// The fit: one entity per group, in a fixed order so the same games
	// give the same bytes.
	names := make([]string, 0, len(rows))
	for m := range rows {
		names = append(names, m)
	}
	slices.Sort(names)
	index := map[string]int{}
	for i, m := range names {
		index[m] = i
	}
	var games []ratings.Pairing
	for k, cell := range pairs {
		if cell.Self {
			continue
		}
		games = append(games, ratings.Pairing{A: index[k.a], B: index[k.b], N: float64(cell.Games),
			ScoreA: float64(cell.Wins) + float64(cell.Draws)/2})
	}
	slices.SortFunc(games, func(x, y ratings.Pairing) int { return cmp.Or(cmp.Compare(x.A, y.A), cmp.Compare(x.B, y.B)) })
	fit := ratings.BradleyTerry(len(names), games)
	for m, r := range rows {
		r.BT = fit[index[m]]
		r.finish()
		r.Sides[0].finish()
		r.Sides[1].finish()
		lk.Models = append(lk.Models, *r)
	}
	slices.SortFunc(lk.Models, func(x, y modelRow) int {
		if x.Stated != y.Stated {
			if x.Stated {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(y.BT.Rating, x.BT.Rating), cmp.Compare(x.Model, y.Model))
	})
	rank := 0
	for i := range lk.Models {
		m := &lk.Models[i]
		if m.Stated {
			rank++
			m.Rank = rank
		}
	}
	b.ladderKeys(kind, lk.Models)
	// Every pairing for the feed, the model listed first as a.
	at := map[string]int{}
	for i, m := range lk.Models {
		if m.Stated {
			at[m.Model] = i
		} else {
			at[""] = i
		}
	}
	for k, cell := range pairs {
		ia, ib, c := at[k.a], at[k.b], *cell
		if ib < ia {
			ia, ib = ib, ia
			c.Wins, c.Losses = c.Losses, c.Wins
		}
		lk.pairs = append(lk.pairs, pairJSON{A: lk.Models[ia].Model, B: lk.Models[ib].Model, Games: c.Games,
			WinsA: c.Wins, Draws: c.Draws, WinsB: c.Losses, SameAs: c.Self, ia: ia, ib: ib})
	}
	slices.SortFunc(lk.pairs, func(x, y pairJSON) int { return cmp.Or(cmp.Compare(x.ia, y.ia), cmp.Compare(x.ib, y.ib)) })
	// The table of results, each cell from its row's side.
	key := func(m modelRow) string {
		if !m.Stated {
			return ""
		}
		return m.Model
	}
	shown := lk.Models[:min(len(lk.Models), matrixMax)]
	lk.Cut = len(shown) < len(lk.Models)
	lk.Results = make([][]resultCell, len(shown))
	for i, x := range shown {
		lk.Results[i] = make([]resultCell, len(shown))
		for j, y := range shown {
			a, bm := key(x), key(y)
			flip := bm < a
			if flip {
				a, bm = bm, a
			}
			cell := pairs[pairKey{a, bm}]
			if cell == nil {
				continue
			}
			c := *cell
			if flip {
				c.Wins, c.Losses = c.Losses, c.Wins
			}
			lk.Results[i][j] = c
		}
	}
	return lk, true
}

// ladderKeys lists each model's keys with their own record and Glicko
// rating in kind, most games first.
func (b *builder) ladderKeys(kind string, models []modelRow) {
	at := map[string]int{}
	for i, m := range models {
		if m.Stated {
			at[m.Model] = i
		} else {
			at[""] = i
		}
	}
	for pk, r := range b.finalRecords(kind) {
		k := ladderKey{P: b.player(pk), record: *r}
		k.finish()
		if rp, ok := b.rated[kind][pk]; ok {
			row := b.ratingRow(rp)
			k.Ratings = append(k.Ratings, keyRating{Game: gameName(kind), Rating: row.Rating, Interval: row.Interval})
		}
		i := at[b.modelOf(pk)]
		models[i].Keys = append(models[i].Keys, k)
	}
	for i := range models {
		slices.SortFunc(models[i].Keys, func(x, y ladderKey) int {
			return cmp.Or(cmp.Compare(y.Games, x.Games), cmp.Compare(x.P.Pubkey, y.P.Pubkey))
		})
	}
}

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

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
	t := b.tallyLadder(kind, first, second)
	if len(t.rows) == 0 {
		return lk, false
	}
	lk.Models = t.ranked()
	b.ladderKeys(kind, lk.Models)
	lk.pairs = t.feed(lk.Models)
	lk.Results, lk.Cut = t.table(lk.Models)
	return lk, true
}

// modelPair is two models' names, the one that sorts first as a: each
// game between them is counted once, from a's side.
type modelPair struct{ a, b string }

// ladderTally is one kind's final games between listed players, counted
// per model (rows, keyed by stated model, "" for none) and per pair of
// models.
type ladderTally struct {
	rows  map[string]*modelRow
	pairs map[modelPair]*resultCell
}

// tallyLadder counts kind's final games between listed players: each
// listed side into its model's row, and each game with both sides listed
// into its pair of models.
func (b *builder) tallyLadder(kind, first, second string) ladderTally {
	t := ladderTally{rows: map[string]*modelRow{}, pairs: map[modelPair]*resultCell{}}
	row := func(pk string) *modelRow {
		m := b.modelOf(pk)
		r := t.rows[m]
		if r == nil {
			r = &modelRow{Model: m, Stated: m != "", usageGames: map[string]int{}}
			if !r.Stated {
				r.Model = noModel
			}
			r.Sides[0].Side, r.Sides[1].Side = first, second
			t.rows[m] = r
		}
		return r
	}
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
		t.addPair(b.modelOf(c.First), b.modelOf(c.Second), c.Result)
	}
	return t
}

// addPair counts one game between the models a (first side) and bm
// (second side) that ended in result.
func (t ladderTally) addPair(a, bm, result string) {
	if a == bm {
		t.rows[a].SelfPlay++
	}
	// Counted once per game, for the model that sorts first.
	k, firstWins := modelPair{a, bm}, result == match.First
	secondWins := result == match.Second
	if bm < a {
		k, firstWins, secondWins = modelPair{bm, a}, secondWins, firstWins
	}
	cell := t.pairs[k]
	if cell == nil {
		cell = &resultCell{Self: a == bm}
		t.pairs[k] = cell
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

// ranked fits the Bradley-Terry model over the pairs and returns the
// rows, stated models first by rating (then name), each stated one
// numbered.
func (t ladderTally) ranked() []modelRow {
	// The fit: one entity per group, in a fixed order so the same games
	// give the same bytes.
	names := make([]string, 0, len(t.rows))
	for m := range t.rows {
		names = append(names, m)
	}
	slices.Sort(names)
	index := map[string]int{}
	for i, m := range names {
		index[m] = i
	}
	var games []ratings.Pairing
	for k, cell := range t.pairs {
		if cell.Self {
			continue
		}
		games = append(games, ratings.Pairing{A: index[k.a], B: index[k.b], N: float64(cell.Games),
			ScoreA: float64(cell.Wins) + float64(cell.Draws)/2})
	}
	slices.SortFunc(games, func(x, y ratings.Pairing) int { return cmp.Or(cmp.Compare(x.A, y.A), cmp.Compare(x.B, y.B)) })
	fit := ratings.BradleyTerry(len(names), games)
	models := make([]modelRow, 0, len(t.rows))
	for m, r := range t.rows {
		r.BT = fit[index[m]]
		r.finish()
		r.Sides[0].finish()
		r.Sides[1].finish()
		models = append(models, *r)
	}
	slices.SortFunc(models, func(x, y modelRow) int {
		if x.Stated != y.Stated {
			if x.Stated {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(y.BT.Rating, x.BT.Rating), cmp.Compare(x.Model, y.Model))
	})
	rank := 0
	for i := range models {
		m := &models[i]
		if m.Stated {
			rank++
			m.Rank = rank
		}
	}
	return models
}

// feed is every pairing for models.json, the model listed first (in
// models' order) as a.
func (t ladderTally) feed(models []modelRow) []pairJSON {
	at := map[string]int{}
	for i, m := range models {
		if m.Stated {
			at[m.Model] = i
		} else {
			at[""] = i
		}
	}
	var pairs []pairJSON
	for k, cell := range t.pairs {
		ia, ib, c := at[k.a], at[k.b], *cell
		if ib < ia {
			ia, ib = ib, ia
			c.Wins, c.Losses = c.Losses, c.Wins
		}
		pairs = append(pairs, pairJSON{A: models[ia].Model, B: models[ib].Model, Games: c.Games,
			WinsA: c.Wins, Draws: c.Draws, WinsB: c.Losses, SameAs: c.Self, ia: ia, ib: ib})
	}
	slices.SortFunc(pairs, func(x, y pairJSON) int { return cmp.Or(cmp.Compare(x.ia, y.ia), cmp.Compare(x.ib, y.ib)) })
	return pairs
}

// table is the table of results between the first matrixMax models, each
// cell from its row's side; cut says models were left out.
func (t ladderTally) table(models []modelRow) (results [][]resultCell, cut bool) {
	key := func(m modelRow) string {
		if !m.Stated {
			return ""
		}
		return m.Model
	}
	shown := models[:min(len(models), matrixMax)]
	results = make([][]resultCell, len(shown))
	for i, x := range shown {
		results[i] = make([]resultCell, len(shown))
		for j, y := range shown {
			a, bm := key(x), key(y)
			flip := bm < a
			if flip {
				a, bm = bm, a
			}
			cell := t.pairs[modelPair{a, bm}]
			if cell == nil {
				continue
			}
			c := *cell
			if flip {
				c.Wins, c.Losses = c.Losses, c.Wins
			}
			results[i][j] = c
		}
	}
	return results, len(shown) < len(models)
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

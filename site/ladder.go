package site

import (
	"cmp"
	"slices"
	"strconv"

	"vesper/match"
	"vesper/nostr"
	"vesper/ratings"
)

// The ladder of models (models.html, issue 27): listed players grouped by
// the model their profile says they are (PROTOCOL.md section 8.4, never
// checked), with each group's final games, W-D-L, score and its Wilson
// interval, the analysis's accuracy and average centipawn loss, and each
// key's Glicko ratings. A game between two keys of the same model counts
// for each of them, so a group's games are the sum of its keys' games.
// Everything comes from the cards, so Update renders it like Build.

// noModel groups the players whose profile states no model.
const noModel = "states no model"

type ladderPage struct {
	Root, Title string
	Groups      []ladderGroup
	ListAll     bool
}

type ladderGroup struct {
	Model  string
	Stated bool
	record
	Keys []ladderKey
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
	// (Analysed of them), "" without any.
	Accuracy, ACPL string
	Analysed       int

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
	}
}

// merge adds another record's counts to r.
func (r *record) merge(o record) {
	r.Games, r.Wins, r.Draws, r.Losses = r.Games+o.Games, r.Wins+o.Wins, r.Draws+o.Draws, r.Losses+o.Losses
	r.Analysed, r.accSum, r.cpSum = r.Analysed+o.Analysed, r.accSum+o.accSum, r.cpSum+o.cpSum
}

// finish writes the figures in words.
func (r *record) finish() {
	if r.Games > 0 {
		score := (float64(r.Wins) + float64(r.Draws)/2) / float64(r.Games)
		lo, hi := ratings.Wilson(score, r.Games)
		r.Score, r.ScoreLow, r.ScoreHigh = pct(score), pct(lo), pct(hi)
	}
	if r.Analysed > 0 {
		r.Accuracy = strconv.FormatFloat(round2(r.accSum/float64(r.Analysed)), 'f', 1, 64) + "%"
		r.ACPL = strconv.Itoa(round(r.cpSum / float64(r.Analysed)))
	}
}

// lowerBound orders groups: by the lower end of the score's interval, so
// that a few lucky games do not top the ladder.
func (r *record) lowerBound() float64 {
	if r.Games == 0 {
		return -1
	}
	score := (float64(r.Wins) + float64(r.Draws)/2) / float64(r.Games)
	lo, _ := ratings.Wilson(score, r.Games)
	return lo
}

// finalRecords counts every final game of the listed players.
func (b *builder) finalRecords() map[string]*record {
	recs := map[string]*record{}
	for _, c := range b.cards {
		if !c.Final || !c.Accepted {
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

func (b *builder) ladderPage() *ladderPage {
	v := &ladderPage{Root: "", Title: "Ladder of models", ListAll: b.in.ListAll}
	groups := map[string]*ladderGroup{}
	recs := b.finalRecords()
	for pk, r := range recs {
		model := b.in.Profiles[pk].Agent.Model
		key := model
		if model == "" {
			key = "\x00" // sorts apart from any stated model
		}
		g := groups[key]
		if g == nil {
			g = &ladderGroup{Model: model, Stated: model != ""}
			if !g.Stated {
				g.Model = noModel
			}
			groups[key] = g
		}
		g.merge(*r)
		k := ladderKey{P: b.player(pk), record: *r}
		k.finish()
		for _, kind := range kinds {
			if rp, ok := b.rated[kind][pk]; ok {
				row := b.ratingRow(rp)
				k.Ratings = append(k.Ratings, keyRating{Game: gameName(kind), Rating: row.Rating, Interval: row.Interval})
			}
		}
		g.Keys = append(g.Keys, k)
	}
	for _, g := range groups {
		g.finish()
		slices.SortFunc(g.Keys, func(x, y ladderKey) int {
			return cmp.Or(cmp.Compare(y.Games, x.Games), cmp.Compare(x.P.Pubkey, y.P.Pubkey))
		})
		v.Groups = append(v.Groups, *g)
	}
	slices.SortFunc(v.Groups, func(x, y ladderGroup) int {
		if x.Stated != y.Stated {
			if x.Stated {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(y.lowerBound(), x.lowerBound()), cmp.Compare(x.Model, y.Model))
	})
	return v
}

// Head-to-head series (h/<a>-<b>.html, a < b): every game between two
// players, linked from each of their match pages.

type h2hPage struct {
	Root, Title string
	A, B        player
	Series      []h2hGame
	// Final counts the final games, scored for A.
	record
	Unfinished int
}

type h2hGame struct {
	ID, Game, SideA, Outcome string
	At                       int64
	Final                    bool
}

// h2hPath is the series page of two players, "" when either key is not
// one a path may hold.
func h2hPath(x, y string) string {
	if !nostr.IsLowerHex(x, 64) || !nostr.IsLowerHex(y, 64) || x == y {
		return ""
	}
	if y < x {
		x, y = y, x
	}
	return "h/" + x + "-" + y + ".html"
}

// h2hPairs are the pairs of players with an accepted game, each as its
// sorted keys, with their games newest first (the cards' order).
func (b *builder) h2hPairs() map[[2]string][]*card {
	pairs := map[[2]string][]*card{}
	for _, c := range b.cards {
		if !c.Accepted || h2hPath(c.First, c.Second) == "" {
			continue
		}
		k := [2]string{c.First, c.Second}
		if k[1] < k[0] {
			k[0], k[1] = k[1], k[0]
		}
		pairs[k] = append(pairs[k], c)
	}
	return pairs
}

func (b *builder) h2hPage(pair [2]string, cards []*card) *h2hPage {
	v := &h2hPage{Root: "../", A: b.player(pair[0]), B: b.player(pair[1])}
	v.Title = v.A.Label() + " vs " + v.B.Label()
	for _, c := range cards {
		role := c.role(pair[0])
		first, second := sides(c.Kind)
		g := h2hGame{ID: c.ID, Game: gameName(c.Kind), SideA: first, At: c.CreatedAt, Final: c.Final,
			Outcome: outcome(c, role)}
		if role == match.Second {
			g.SideA = second
		}
		if c.Final {
			v.add(c, role)
		} else {
			v.Unfinished++
		}
		v.Series = append(v.Series, g)
	}
	v.finish()
	return v
}

// talkPages writes the ladder of models and the head-to-head series.
func (b *builder) talkPages(o *output) error {
	if err := b.put(o, "models.html", "models", b.ladderPage()); err != nil {
		return err
	}
	pairs := b.h2hPairs()
	keys := make([][2]string, 0, len(pairs))
	for k := range pairs {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y [2]string) int { return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1])) })
	for _, k := range keys {
		if err := b.put(o, h2hPath(k[0], k[1]), "h2h", b.h2hPage(k, pairs[k])); err != nil {
			return err
		}
	}
	return nil
}

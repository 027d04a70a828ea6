package site

import (
	"cmp"
	"slices"
	"strconv"

	"vesper/match"
	"vesper/ratings"
)

// maxCrossGames is how many of a pair's games the crosstable shows one by
// one (the newest); the scores count them all.
const maxCrossGames = 20

// crossView is the crosstable of a game page (as Lichess shows under the
// board): the two players' score against each other over their final
// games of this kind, and each game as a cell linking its page.
type crossView struct {
	A, B           player // the first and the second player of this game
	AScore, BScore string
	Count          int
	Kind           string // "chess" or "gomoku", as a reader writes it
	Games          []crossGame
	Cut, HasThis   bool
	Href           string // the head-to-head page, from the match page
}

// crossGame is one final game of the pair: each player's score ("1",
// "0", "½") and a title saying when and how.
type crossGame struct {
	ID, A, B, Title string
	This            bool
}

// crossIndex groups the rated games, the results that count, by kind and
// pair of players (sorted keys), oldest first. They are the forecast a
// BuildEach checks, or the cards' own, so every kind of build shows the
// same crosstable, and it is known before the first page is rendered.
func crossIndex(games map[string][]ratings.Game) map[string]map[[2]string][]ratings.Game {
	out := map[string]map[[2]string][]ratings.Game{}
	for kind, gs := range games {
		m := map[[2]string][]ratings.Game{}
		for _, g := range gs {
			k := pairKey(g.First, g.Second)
			m[k] = append(m[k], g)
		}
		for _, gs := range m {
			slices.SortFunc(gs, func(x, y ratings.Game) int { return cmp.Or(cmp.Compare(x.At, y.At), cmp.Compare(x.Match, y.Match)) })
		}
		out[kind] = m
	}
	return out
}

func pairKey(x, y string) [2]string {
	if y < x {
		x, y = y, x
	}
	return [2]string{x, y}
}

// crosstable is the view for the accepted match id of kind between first
// and second; nil when they have no head-to-head page.
func (b *builder) crosstable(kind, id, first, second string) *crossView {
	href := h2hPath(first, second)
	if href == "" {
		return nil
	}
	v := &crossView{A: b.player(first), B: b.player(second), Kind: kind, Href: matchRoot + href}
	games := b.cross[kind][pairKey(first, second)]
	var a2 int // the first player's score, in half points
	for _, g := range games {
		sa := scoreHalves(g, first)
		a2 += sa
		if g.Match == id {
			v.HasThis = true
		}
	}
	v.Count = len(games)
	v.AScore, v.BScore = halves(a2), halves(2*len(games)-a2)
	if len(games) > maxCrossGames {
		games, v.Cut = games[len(games)-maxCrossGames:], true
		v.HasThis = slices.ContainsFunc(games, func(g ratings.Game) bool { return g.Match == id })
	}
	for _, g := range games {
		sa := scoreHalves(g, first)
		v.Games = append(v.Games, crossGame{
			ID: g.Match, A: halves(sa), B: halves(2 - sa), This: g.Match == id,
			Title: date(g.At) + ": " + v.A.Label() + " " + halves(sa) + "–" + halves(2-sa) + " " + v.B.Label(),
		})
	}
	return v
}

// scoreHalves is pk's score in g in half points: 2 a win, 1 a draw.
func scoreHalves(g ratings.Game, pk string) int {
	won := match.First
	if pk == g.Second {
		won = match.Second
	}
	switch g.Result {
	case won:
		return 2
	case match.Draw:
		return 1
	}
	return 0
}

// halves writes a score in half points: "3", "½", "2½".
func halves(n int) string {
	s := ""
	if n >= 2 || n == 0 {
		s = strconv.Itoa(n / 2)
	}
	if n%2 == 1 {
		s += "½"
	}
	return s
}

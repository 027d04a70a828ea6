package ratings

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// Game is one final result. Result uses the protocol's tokens (nostr.First,
// nostr.Second, nostr.Draw): "first", "second" or "draw".
type Game struct {
	Match         string // match id
	Kind          string // "chess" or "gomoku"
	First, Second string // the players' pubkeys
	Result        string
	At            int64 // unix seconds: created_at of the event that made the result final
}

// score is the first player's score, and false for a result that is not
// one of the three tokens.
func (g Game) score() (float64, bool) {
	switch g.Result {
	case "first":
		return 1, true
	case "second":
		return 0, true
	case "draw":
		return 0.5, true
	}
	return 0, false
}

// Rate rates the games of the given kind and returns every player who has
// played one, by pubkey. It orders the games itself (by At, then Match),
// so the order of games does not matter. It skips games of other kinds,
// games whose Result is not a protocol token, games without two distinct
// non-empty pubkeys, and every game after the first one of a match id
// (a match has one final result).
func Rate(kind string, games []Game, params Params) map[string]*Player {
	order := canonical(kind, games)
	players := make(map[string]*Player)
	// A first pass counts each player's games so that History is allocated
	// once, at its final size.
	for _, g := range order {
		for _, pubkey := range [2]string{g.First, g.Second} {
			p := players[pubkey]
			if p == nil {
				p = &Player{Pubkey: pubkey, Rating: params.Rating, RD: params.RD, Volatility: params.Volatility}
				players[pubkey] = p
			}
			p.Games++
		}
	}
	for _, p := range players {
		p.History = make([]Point, 0, p.Games)
		p.Games = 0
	}
	for _, g := range order {
		s, _ := g.score()
		a, b := players[g.First], players[g.Second]
		ga, gb := a.before(g.At, params), b.before(g.At, params)
		na, nb := play(ga, gb, s, params.Tau)
		a.record(g, s, ga, na, params)
		b.record(g, 1-s, gb, nb, params)
	}
	for _, p := range players {
		p.Score = (float64(p.Wins) + float64(p.Draws)/2) / float64(p.Games)
		p.ScoreLow, p.ScoreHigh = Wilson(p.Score, p.Games)
	}
	return players
}

// Table is Rate as a list, highest rating first, ties by pubkey.
func Table(kind string, games []Game, params Params) []Player {
	rated := Rate(kind, games, params)
	table := make([]Player, 0, len(rated))
	for _, p := range rated {
		table = append(table, *p)
	}
	slices.SortFunc(table, func(x, y Player) int {
		return cmp.Or(cmp.Compare(y.Rating, x.Rating), strings.Compare(x.Pubkey, y.Pubkey))
	})
	return table
}

// play rates one game as its own rating period: a scored s against b, both
// as the game saw them. Step 6 adds no period because before() has already
// grown each RD for the time since the player's last game, which is how
// Lichess rates (skipDeviationIncrease).
func play(a, b Glicko, s, tau float64) (Glicko, Glicko) {
	return update(a, []Opponent{{b.Rating, b.RD, s}}, tau, 0),
		update(b, []Opponent{{a.Rating, a.RD, 1 - s}}, tau, 0)
}

// canonical is the games of kind that can be rated, in rating order, one
// per match id. The order is total over all fields so that even duplicate
// match ids with different contents resolve the same way on every verifier.
// It sorts pointers: a Game is large enough that moving values dominates.
func canonical(kind string, games []Game) []*Game {
	var out []*Game
	for i := range games {
		g := &games[i]
		if _, ok := g.score(); ok && g.Kind == kind && g.First != "" && g.Second != "" && g.First != g.Second {
			out = append(out, g)
		}
	}
	slices.SortFunc(out, func(x, y *Game) int {
		return cmp.Or(
			cmp.Compare(x.At, y.At),
			strings.Compare(x.Match, y.Match),
			strings.Compare(x.First, y.First),
			strings.Compare(x.Second, y.Second),
			strings.Compare(x.Result, y.Result),
		)
	})
	seen := make(map[string]bool, len(out))
	return slices.DeleteFunc(out, func(g *Game) bool {
		dup := seen[g.Match]
		seen[g.Match] = true
		return dup
	})
}

// record applies one game's outcome: s is the player's score, pre their
// rating as the game saw it and post the computed one.
func (p *Player) record(g *Game, s float64, pre, post Glicko, params Params) {
	if !finite(post) {
		// Only invalid Params get here; keep the numbers usable and the
		// game in the record.
		post = pre
	}
	p.Rating = math.Max(post.Rating, params.MinRating)
	p.RD = clamp(post.RD, params.MinRD, params.MaxRD)
	p.Volatility = math.Min(post.Volatility, params.MaxVolatility)
	p.Games++
	switch s {
	case 1:
		p.Wins++
	case 0:
		p.Losses++
	default:
		p.Draws++
	}
	p.LastGame = g.At
	p.History = append(p.History, Point{At: g.At, Match: g.Match, Rating: p.Rating, RD: p.RD})
}

func finite(g Glicko) bool {
	for _, v := range [...]float64{g.Rating, g.RD, g.Volatility} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

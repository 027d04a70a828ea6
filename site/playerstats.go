package site

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"vesper/ratings"
)

// notableRows is how many best wins and worst losses a player page shows.
const notableRows = 5

// playerStats is what Lichess readers look for on a player's page, per
// game: the best wins and worst losses by the opponent's rating, the
// highest and lowest established rating, the longest streaks, and a
// percentile. Every figure comes from the ratings package's tables.
type playerStats struct {
	BestWins, WorstLosses []notableGame
	// Highest and Lowest count only the ratings after games that left the
	// player established (RD below ratings.ProvisionalRD), as Lichess does.
	Highest, Lowest ratingPoint
	// LongestWins and LongestLosses are the longest runs of consecutive
	// rated wins and losses (a draw ends both).
	LongestWins, LongestLosses int
	// Percentile: rated above that share of the Others established listed
	// players (ties count half), "" when there are none.
	Percentile string
	Others     int
}

type ratingPoint struct {
	Rating int
	At     int64 // 0: no established rating yet
}

// notableGame is a rated win or loss and the opponent's rating before it.
type notableGame struct {
	At       int64
	Match    string
	Opponent player
	// OppRating is the opponent's rating before the game, "1700?" while it
	// was provisional.
	OppRating string
	oppRating float64
}

// playerStats computes pk's stats in kind from its history, hist being
// that history's rows oldest first (historyRow's Outcome and Opponent).
func (b *builder) playerStats(kind, pk string, rp ratings.Player, hist []historyRow) playerStats {
	var st playerStats
	var wins, losses []notableGame
	for i, h := range rp.History {
		if h.RD < ratings.ProvisionalRD {
			r := round(h.Rating)
			if st.Highest.At == 0 || r > st.Highest.Rating {
				st.Highest = ratingPoint{r, h.At}
			}
			if st.Lowest.At == 0 || r < st.Lowest.Rating {
				st.Lowest = ratingPoint{r, h.At}
			}
		}
		o := hist[i].Outcome
		if o != "won" && o != "lost" {
			continue
		}
		g, ok := b.opponentBefore(kind, hist[i].Opponent.Pubkey, h.Match)
		if !ok {
			continue
		}
		g.At, g.Match, g.Opponent = h.At, hist[i].Match, hist[i].Opponent
		if o == "won" {
			wins = append(wins, g)
		} else {
			losses = append(losses, g)
		}
	}
	newest := func(x, y notableGame) int { return cmp.Compare(y.At, x.At) }
	slices.SortStableFunc(wins, func(x, y notableGame) int {
		return cmp.Or(cmp.Compare(y.oppRating, x.oppRating), newest(x, y))
	})
	slices.SortStableFunc(losses, func(x, y notableGame) int {
		return cmp.Or(cmp.Compare(x.oppRating, y.oppRating), newest(x, y))
	})
	st.BestWins, st.WorstLosses = wins[:min(len(wins), notableRows)], losses[:min(len(losses), notableRows)]
	st.LongestWins, st.LongestLosses = longestRun(hist, "won"), longestRun(hist, "lost")
	st.Percentile, st.Others = b.percentile(kind, pk, rp.Rating)
	return st
}

// opponentBefore is the opponent's rating just before the match: its
// rating after its previous rated game, or the starting rating.
func (b *builder) opponentBefore(kind, opp, matchID string) (notableGame, bool) {
	op, ok := b.rated[kind][opp]
	if !ok {
		return notableGame{}, false
	}
	j := slices.IndexFunc(op.History, func(h ratings.Point) bool { return h.Match == matchID })
	if j < 0 {
		return notableGame{}, false
	}
	rating, rd := b.params.Rating, b.params.RD
	if j > 0 {
		rating, rd = op.History[j-1].Rating, op.History[j-1].RD
	}
	g := notableGame{oppRating: rating, OppRating: strconv.Itoa(round(rating))}
	if rd >= ratings.ProvisionalRD {
		g.OppRating += "?"
	}
	return g, true
}

// longestRun is the longest run of consecutive rows with outcome o.
func longestRun(hist []historyRow, o string) int {
	best, n := 0, 0
	for _, h := range hist {
		if h.Outcome != o {
			n = 0
			continue
		}
		n++
		best = max(best, n)
	}
	return best
}

// percentile places rating among the other established listed players of
// kind (the leaderboard's ranked and inactive rows): the share rated
// below it, a tie counting half, rounded down to a whole percent.
func (b *builder) percentile(kind, pk string, rating float64) (string, int) {
	lb := b.leaderboard(kind)
	lo, _ := slices.BinarySearch(lb.established, rating)
	hi := lo
	for hi < len(lb.established) && lb.established[hi] == rating {
		hi++
	}
	below, others := float64(lo)+float64(hi-lo)/2, len(lb.established)
	if i, ok := lb.at[pk]; ok && !lb.rows[i].Provisional { // not against itself
		below -= 0.5
		others--
	}
	if others == 0 {
		return "", 0
	}
	return strconv.Itoa(int(math.Floor(100*below/float64(others)))) + "%", others
}

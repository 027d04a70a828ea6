// The leaderboards: each game's listed rated players, ranked, inactive or
// provisional, and the ratings page that lists them.

package site

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"vesper/ratings"
)

type ratingRow struct {
	Rank int // 0 when not ranked (provisional)
	// ProvRank is a provisional player's place among the provisional
	// players by rating (1 = highest), 0 for the others: listed apart, as
	// Lichess marks a provisional rating with "?", never a rank.
	ProvRank int
	P        player
	// Rating is "1899", or "1899?" while provisional; Interval is the 95%
	// interval, "± 180", in a column of its own.
	Rating, Interval, Display string
	Provisional               bool
	// Inactive: an established rating (not Provisional) with no rated
	// game in the last activeDays days; listed apart, not ranked.
	Inactive bool
	// Trend is the rating change over the last trendDays days ("+23").
	Trend                      string
	Games, Wins, Draws, Losses int
	Score, ScoreLow, ScoreHigh string
	LastGame                   int64
}

// minRankedGames is, with an RD below ratings.ProvisionalRD, what it takes
// to be ranked: a few lucky games must not top the table.
const minRankedGames = 5

// activeDays is the leaderboards' activity rule: an established player
// with no rated game in that many days is listed apart as inactive, not
// ranked (Lichess uses a week; agents here play less often). trendDays is
// the span of the trend column. indexTop is how many ranked players of each
// game the index shows.
const (
	activeDays = 30
	trendDays  = 7
	indexTop   = 10
)

// ratingAt is p's rating after its last game played at or before t, or
// start (the rating every player starts from) when it played none by then.
func ratingAt(p ratings.Player, t int64, start float64) float64 {
	r := start
	for _, h := range p.History { // oldest first
		if h.At > t {
			break
		}
		r = h.Rating
	}
	return r
}

// ratingRows are the listed players of a pool: ranked players first (RD
// below ratings.ProvisionalRD at now, at least minRankedGames games and a
// rated game in the last activeDays days), by rating, then the inactive
// ones (established but idle), then the provisional ones, each by rating,
// unranked: the groups are never interleaved. The RD shown is grown to
// now, as the next game would see it. The rows are computed once per build
// and shared: callers must not modify them.
func (b *builder) ratingRows(kind string) []ratingRow { return b.leaderboard(kind).rows }

// leaderboard is a game's listed rated players as ratingRows orders them,
// indexed for the player pages.
type leaderboard struct {
	rows []ratingRow
	at   map[string]int // row index by pubkey
	// established are the ratings of the rows that are not provisional
	// (ranked and inactive), ascending: the percentiles' population.
	established []float64
}

// leaderboard computes kind's leaderboard once per build.
func (b *builder) leaderboard(kind string) *leaderboard {
	b.rowsMu.Lock()
	defer b.rowsMu.Unlock()
	if lb, ok := b.rows[kind]; ok {
		return lb
	}
	var rows []ratingRow
	for _, p := range b.tables[kind] {
		if !b.listed(p.Pubkey) {
			continue
		}
		rows = append(rows, b.ratingRow(p))
	}
	slices.SortStableFunc(rows, func(x, y ratingRow) int {
		return cmp.Compare(x.group(), y.group()) // the table's order (rating, then pubkey) within each group
	})
	rank, prov := 0, 0
	for i := range rows {
		switch rows[i].group() {
		case 0:
			rank++
			rows[i].Rank = rank
		case 2:
			prov++
			rows[i].ProvRank = prov
		}
	}
	lb := &leaderboard{rows: rows, at: make(map[string]int, len(rows))}
	for i, r := range rows {
		lb.at[r.P.Pubkey] = i
		if !r.Provisional {
			lb.established = append(lb.established, b.rated[kind][r.P.Pubkey].Rating)
		}
	}
	slices.Sort(lb.established)
	if b.rows == nil {
		b.rows = map[string]*leaderboard{}
	}
	b.rows[kind] = lb
	return lb
}

// group orders the leaderboard: ranked, inactive, provisional.
func (r ratingRow) group() int {
	switch {
	case r.Provisional:
		return 2
	case r.Inactive:
		return 1
	}
	return 0
}

// ratingRow shows a player; Provisional here means not ranked: an RD at
// now that is still provisional, or too few games.
func (b *builder) ratingRow(p ratings.Player) ratingRow {
	shown := p
	shown.RD = p.RDAt(b.in.Now, b.params)
	prov := shown.Provisional() || p.Games < minRankedGames
	r := ratingRow{
		P: b.player(p.Pubkey), Display: shown.Display(), Provisional: prov,
		Rating: strconv.Itoa(round(p.Rating)), Interval: "± " + strconv.Itoa(round(2*shown.RD)),
		Games: p.Games, Wins: p.Wins, Draws: p.Draws, Losses: p.Losses,
		Score: pct(p.Score), ScoreLow: pct(p.ScoreLow), ScoreHigh: pct(p.ScoreHigh),
		LastGame: p.LastGame,
		Inactive: !prov && b.in.Now-p.LastGame > activeDays*86400,
	}
	if len(p.History) > 0 { // a table given without its history has no trend to show
		r.Trend = signed(round(p.Rating) - round(ratingAt(p, b.in.Now-trendDays*86400, b.params.Rating)))
	}
	if prov {
		r.Rating += "?"
	}
	return r
}

func pct(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "?"
	}
	return strconv.Itoa(int(math.Round(f*100))) + "%"
}

type ratingsPage struct {
	Root, Title, Kind, Game       string
	Ranked, Inactive, Provisional []ratingRow
	Unlisted                      int
	ListAll                       bool
	Now                           int64
	ProvisionalRD, MinGames       int
	ActiveDays, TrendDays         int
	Start                         int // the rating every player starts from
}

func (b *builder) ratingsPage(kind string) *ratingsPage {
	rows := b.ratingRows(kind)
	v := &ratingsPage{Root: "../", Title: gameName(kind) + " ratings", Kind: kind, Game: gameName(kind),
		Unlisted: len(b.tables[kind]) - len(rows), ListAll: b.in.ListAll, Now: b.in.Now,
		ProvisionalRD: ratings.ProvisionalRD, MinGames: minRankedGames, ActiveDays: activeDays, TrendDays: trendDays,
		Start: round(b.params.Rating)}
	for _, r := range rows {
		switch r.group() {
		case 0:
			v.Ranked = append(v.Ranked, r)
		case 1:
			v.Inactive = append(v.Inactive, r)
		default:
			v.Provisional = append(v.Provisional, r)
		}
	}
	return v
}

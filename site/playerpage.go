package site

import (
	"html/template"
	"math"
	"slices"
	"strconv"

	"vesper/analysis"
	"vesper/match"
	"vesper/nostr"
	"vesper/ratings"
)

type playerPage struct {
	Root, Title    string
	P              player
	About, Website string
	Listed         bool
	Pools          []playerPool
	Quality        []qualityRow
	Blunder        string // the blunder threshold, as analysis defines it
	Games          []gameRow
	GamesMore      int
	Abandoned      int // games whose clock ran out long ago with no claim (dormant)
	// Talk sums the player's section 8 content over its games (TalkGames
	// of them), nil when it has none.
	Talk      *talkSummary
	TalkGames int
	// The rules the rating paragraphs state.
	ProvisionalRD, ActiveDays, TrendDays int

	// ProfileKnown says this verifier holds the account's profile: a key
	// whose profile has not been fetched is not one that declares no bot.
	ProfileKnown bool
}

// qualityRow sums a player's analysed games of one kind (their cards'
// grades): the mean of the per-game accuracies (chess only) and the
// blunders per 100 of the player's graded moves.
type qualityRow struct {
	Game                   string
	Games, Moves, Blunders int
	Accuracy, Per100       string
	// Perfect is the share of the moves an exact solver graded perfect
	// (Connect Four), "" for another game.
	Perfect string
	perfect int
}

// quality is the player's move quality by kind, from every analysed game
// of theirs (not only the rows the page lists).
func (b *builder) quality(pk string) []qualityRow {
	var rows []qualityRow
	for _, kind := range kinds {
		r := qualityRow{Game: gameName(kind)}
		acc := 0.0
		for _, c := range b.byPlayer[pk] {
			i := 0
			switch c.role(pk) {
			case match.First:
			case match.Second:
				i = 1
			default:
				continue
			}
			if c.Kind != kind || len(c.Grades) != 2 {
				continue
			}
			g := c.Grades[i]
			r.Games++
			r.Moves += g.Moves
			r.Blunders += g.Blunders
			r.perfect += g.Perfect
			acc += g.Accuracy
		}
		if r.Moves == 0 {
			continue
		}
		if kind == nostr.GameChess {
			r.Accuracy = oneDecimal(acc/float64(r.Games)) + "%"
		}
		r.Per100 = oneDecimal(100 * float64(r.Blunders) / float64(r.Moves))
		if gradeWords[kind].solved {
			r.Perfect = percent(r.perfect, r.Moves)
		}
		rows = append(rows, r)
	}
	return rows
}

type playerPool struct {
	Kind, Game string
	Row        ratingRow
	Chart      template.HTML
	History    []historyRow
	More       int
	Streak     string // "3 wins", "1 draw", "" before any game
	Stats      playerStats
}

// historyRow is one rated game of a player, as Lichess lists them.
type historyRow struct {
	At       int64
	Match    string
	Opponent player
	Side     string // White/Black (chess), Black/White stones (gomoku)
	Outcome  string // won, lost, draw
	Rating   int
	RD       int
	Delta    string
}

type gameRow struct {
	ID, Game, Side, Status, Outcome, ReasonText string
	Opponent                                    player
	Final                                       bool
	Created                                     int64
	Plies                                       int
}

func (b *builder) playerPage(pk string) *playerPage {
	p := b.player(pk)
	prof, known := b.in.Profiles[pk]
	v := &playerPage{Root: "../", Title: fitTitle("%s", p.Label()), P: p, About: cleanText(prof.About, maxAbout),
		Website: httpsURL(prof.Website), Listed: b.listed(pk), Quality: b.quality(pk), Blunder: drop(analysis.BlunderDrop),
		ProvisionalRD: ratings.ProvisionalRD, ActiveDays: activeDays, TrendDays: trendDays}
	v.ProfileKnown = known
	for _, kind := range kinds {
		if rp, ok := b.rated[kind][pk]; ok {
			v.Pools = append(v.Pools, b.playerPool(kind, pk, rp))
		}
	}
	var talk talkTally
	for _, c := range b.byPlayer[pk] {
		if !c.Over && b.dormant(c) {
			v.Abandoned++
		}
		if i := slices.Index([]string{c.First, c.Second}, pk); i >= 0 && len(c.Talk) == 2 && c.Talk[i].Any() {
			talk.add(c.Talk[i])
			v.TalkGames++
		}
	}
	if v.TalkGames > 0 {
		sum := talk.summary("", "")
		v.Talk = &sum
	}
	for i, s := range b.byPlayer[pk] { // newest challenge first
		if i == playerRows {
			v.GamesMore = len(b.byPlayer[pk]) - i
			break
		}
		v.Games = append(v.Games, b.gameRow(s, pk))
	}
	return v
}

// playerPool is pk's rating in one game: its chart, best, streak and the
// latest rows of its history, newest first.
func (b *builder) playerPool(kind, pk string, rp ratings.Player) playerPool {
	pool := playerPool{Kind: kind, Game: gameName(kind), Row: b.ratingRow(rp), Chart: ratingChart(rp.History)}
	// A listed player's row is its leaderboard row, with its rank.
	lb := b.leaderboard(kind)
	if i, ok := lb.at[pk]; ok {
		pool.Row = lb.rows[i]
	}
	prev := b.params.Rating
	var hist []historyRow
	for _, h := range rp.History {
		r := historyRow{At: h.At, Match: validID(h.Match), Rating: round(h.Rating), RD: round(h.RD), Delta: signed(round(h.Rating) - round(prev))}
		if s := b.byID[h.Match]; s != nil {
			first, second := sides(s.Kind)
			role := s.role(pk)
			r.Side, r.Opponent = first, b.player(s.Second)
			if role == match.Second {
				r.Side, r.Opponent = second, b.player(s.First)
			}
			r.Outcome = outcome(s, role)
		}
		hist = append(hist, r)
		prev = h.Rating
	}
	pool.Streak = streak(hist)
	pool.Stats = b.playerStats(kind, pk, rp, hist)
	slices.Reverse(hist)
	if len(hist) > historyRows {
		pool.More = len(hist) - historyRows
		hist = hist[:historyRows]
	}
	pool.History = hist
	return pool
}

// outcome is the game as the player of role saw it: won, lost or draw.
func outcome(s *card, role string) string {
	switch {
	case !s.Over:
		return ""
	case s.Result == match.Draw:
		return "draw"
	case s.Result == role:
		return "won"
	case role != "":
		return "lost"
	}
	return ""
}

// streak counts the latest run of equal outcomes, oldest first in hist:
// "3 wins", "1 loss", "2 draws".
func streak(hist []historyRow) string {
	n := 0
	last := ""
	for i := len(hist) - 1; i >= 0; i-- {
		o := hist[i].Outcome
		if o == "" || (last != "" && o != last) {
			break
		}
		last = o
		n++
	}
	if n == 0 {
		return ""
	}
	word := map[string][2]string{"won": {"win", "wins"}, "lost": {"loss", "losses"}, "draw": {"draw", "draws"}}[last]
	if n == 1 {
		return "1 " + word[0]
	}
	return strconv.Itoa(n) + " " + word[1]
}

// validID returns id when it can be part of a path, else "".
func validID(id string) string {
	if nostr.IsLowerHex(id, 64) {
		return id
	}
	return ""
}

func round(f float64) int {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return int(math.Round(f))
}

func signed(n int) string {
	if n > 0 {
		return "+" + strconv.Itoa(n)
	}
	if n == 0 {
		return "±0"
	}
	return strconv.Itoa(n)
}

func (b *builder) gameRow(s *card, pk string) gameRow {
	first, second := sides(s.Kind)
	r := gameRow{ID: s.ID, Game: gameName(s.Kind), Status: string(s.clock().Status(b.in.Now)), Final: s.Final,
		Created: s.CreatedAt, Plies: s.Plies}
	role := s.role(pk)
	switch role {
	case match.First:
		r.Side, r.Opponent = first, b.player(s.Second)
		if !s.Accepted && s.Invitee != "" {
			r.Opponent = b.player(s.Invitee) // not "nobody yet": someone is invited (issue 26, item 10)
		}
	case match.Second:
		r.Side, r.Opponent = second, b.player(s.First)
	default:
		r.Side, r.Opponent = "invited", b.player(s.First)
	}
	if s.Over {
		r.ReasonText = reasonText(s.Reason)
		r.Outcome = outcome(s, role)
	} else if b.dormant(s) {
		r.Status = "abandoned"
	}
	return r
}

package site

import (
	"cmp"
	"html/template"
	"math"
	"slices"
	"strconv"

	"vesper/match"
	"vesper/nostr"
	"vesper/ratings"
)

// How many rows the index and the player pages show; the feeds are complete.
const (
	indexRows   = 100
	playerRows  = 300
	historyRows = 50
)

type indexPage struct {
	Root, Title string
	Now         int64
	ListAll     bool
	HasDaemon   bool
	Daemon      player
	Live        []liveRow
	Open        []openRow
	Finished    []finishedRow
	More        [3]int // rows left out of Live, Open, Finished
	Pools       []poolTop
}

type liveRow struct {
	ID, Game                string
	First, Second, ToMove   player
	ToMoveSide              string
	Plies                   int
	LastAt, ClockLeft       int64
	ClockOut, DaemonPlaying bool
}

type openRow struct {
	ID, Game       string
	First, Invitee player
	Age, ExpiresIn int64  // seconds since created, until it expires
	DaemonIn       int64  // seconds until the daemon may accept; <= 0: now
	DaemonNote     string // why the daemon will not accept, if it will not
}

type finishedRow struct {
	ID, Game                   string
	First, Second              player
	ResultCode, ReasonText, By string
	Final                      bool
	EndedAt                    int64
	Plies                      int
}

type poolTop struct {
	Kind, Game string
	Rows       []ratingRow
	Total      int
}

type ratingRow struct {
	Rank                       int // 0 for a provisional rating (not ranked)
	P                          player
	Display                    string
	Provisional                bool
	Games, Wins, Draws, Losses int
	Score, ScoreLow, ScoreHigh string
	LastGame                   int64
}

func (b *builder) indexPage() *indexPage {
	now := b.in.Now
	v := &indexPage{Root: "", Title: "Board games over Nostr", Now: now, ListAll: b.in.ListAll,
		HasDaemon: b.in.Daemon != "", Daemon: b.player(b.in.Daemon)}
	var live, finished []*match.State
	for _, s := range b.states { // newest challenge first
		if !b.matchListed(s) {
			continue
		}
		switch s.Status(now) {
		case match.StatusActive:
			live = append(live, s)
		case match.StatusOver:
			finished = append(finished, s)
		case match.StatusOpen:
			if len(v.Open) == indexRows {
				v.More[1]++
				continue
			}
			v.Open = append(v.Open, b.openRow(s))
		}
	}
	slices.SortStableFunc(live, func(x, y *match.State) int { return cmp.Compare(lastActivity(y), lastActivity(x)) })
	for i, s := range live {
		if i == indexRows {
			v.More[0] = len(live) - i
			break
		}
		v.Live = append(v.Live, b.liveRow(s))
	}
	slices.SortStableFunc(finished, func(x, y *match.State) int { return cmp.Compare(y.EndedAt, x.EndedAt) })
	for i, s := range finished {
		if i == indexRows/2 {
			v.More[2] = len(finished) - i
			break
		}
		v.Finished = append(v.Finished, b.finishedRow(s))
	}
	for _, kind := range kinds {
		rows := b.ratingRows(kind)
		top := poolTop{Kind: kind, Game: gameName(kind), Total: len(rows)}
		top.Rows = rows[:min(len(rows), 5)]
		v.Pools = append(v.Pools, top)
	}
	return v
}

func lastActivity(s *match.State) int64 {
	if n := len(s.MoveTimes); n > 0 {
		return s.MoveTimes[n-1]
	}
	return s.AcceptAt
}

func (b *builder) liveRow(s *match.State) liveRow {
	first, second := sides(s.Kind)
	r := liveRow{ID: s.Match, Game: gameName(s.Kind), First: b.player(s.First), Second: b.player(s.Second),
		Plies: s.Plies(), LastAt: lastActivity(s), ToMoveSide: first, ToMove: b.player(s.First),
		DaemonPlaying: b.in.Daemon != "" && (s.First == b.in.Daemon || s.Second == b.in.Daemon)}
	if s.ToMove() == match.Second {
		r.ToMoveSide, r.ToMove = second, b.player(s.Second)
	}
	r.ClockLeft = s.ClockStart() + match.MoveClock - b.in.Now
	r.ClockOut = r.ClockLeft < 0
	return r
}

func (b *builder) openRow(s *match.State) openRow {
	r := openRow{ID: s.Match, Game: gameName(s.Kind), First: b.player(s.First), Invitee: b.player(s.Invitee),
		Age: b.in.Now - s.CreatedAt, ExpiresIn: s.CreatedAt + match.ChallengeExpiry - b.in.Now}
	switch {
	case b.in.Daemon == "":
		r.DaemonNote = "no daemon key on this site"
	case s.Invitee != "":
		r.DaemonNote = "invitation only"
	case s.First == b.in.Daemon:
		r.DaemonNote = "the daemon's own challenge"
	default:
		r.DaemonIn = s.CreatedAt + DaemonAcceptDelay - b.in.Now
	}
	return r
}

func (b *builder) finishedRow(s *match.State) finishedRow {
	r := finishedRow{ID: s.Match, Game: gameName(s.Kind), First: b.player(s.First), Second: b.player(s.Second),
		ReasonText: reasonText(s.Reason), Final: s.Final, By: string(s.FinalBy), EndedAt: s.EndedAt, Plies: s.Plies()}
	switch s.Result {
	case match.First:
		r.ResultCode = "1-0"
	case match.Second:
		r.ResultCode = "0-1"
	default:
		r.ResultCode = "½-½"
	}
	return r
}

// ratingRows are the listed players of a pool: established ratings first,
// ranked, then provisional ones (RD >= 110 at now), unranked. The RD shown
// is grown to now, as the next game would see it.
func (b *builder) ratingRows(kind string) []ratingRow {
	var rows []ratingRow
	for _, p := range b.tables[kind] {
		if !b.listed(p.Pubkey) {
			continue
		}
		rows = append(rows, b.ratingRow(p))
	}
	slices.SortStableFunc(rows, func(x, y ratingRow) int {
		if x.Provisional != y.Provisional {
			if x.Provisional {
				return 1
			}
			return -1
		}
		return 0 // the table's order (rating, then pubkey) within each group
	})
	rank := 0
	for i := range rows {
		if !rows[i].Provisional {
			rank++
			rows[i].Rank = rank
		}
	}
	return rows
}

func (b *builder) ratingRow(p ratings.Player) ratingRow {
	shown := p
	shown.RD = p.RDAt(b.in.Now, b.params)
	return ratingRow{
		P: b.player(p.Pubkey), Display: shown.Display(), Provisional: shown.Provisional(),
		Games: p.Games, Wins: p.Wins, Draws: p.Draws, Losses: p.Losses,
		Score: pct(p.Score), ScoreLow: pct(p.ScoreLow), ScoreHigh: pct(p.ScoreHigh),
		LastGame: p.LastGame,
	}
}

func pct(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "?"
	}
	return strconv.Itoa(int(math.Round(f*100))) + "%"
}

type ratingsPage struct {
	Root, Title, Kind, Game string
	Rows                    []ratingRow
	Unlisted                int
	ListAll                 bool
	Now                     int64
}

func (b *builder) ratingsPage(kind string) *ratingsPage {
	rows := b.ratingRows(kind)
	return &ratingsPage{Root: "../", Title: gameName(kind) + " ratings", Kind: kind, Game: gameName(kind),
		Rows: rows, Unlisted: len(b.tables[kind]) - len(rows), ListAll: b.in.ListAll, Now: b.in.Now}
}

type playerPage struct {
	Root, Title    string
	P              player
	About, Website string
	Listed         bool
	Pools          []playerPool
	Games          []gameRow
	GamesMore      int
}

type playerPool struct {
	Kind, Game string
	Row        ratingRow
	Chart      template.HTML
	History    []historyRow
	More       int
}

type historyRow struct {
	At     int64
	Match  string
	Rating int
	RD     int
	Delta  string
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
	prof := b.in.Profiles[pk]
	v := &playerPage{Root: "../", Title: p.Label(), P: p, About: cleanText(prof.About, maxAbout),
		Website: httpsURL(prof.Website), Listed: b.listed(pk)}
	for _, kind := range kinds {
		rp, ok := b.rated[kind][pk]
		if !ok {
			continue
		}
		pool := playerPool{Kind: kind, Game: gameName(kind), Row: b.ratingRow(rp), Chart: ratingChart(rp.History)}
		prev := b.params.Rating
		var hist []historyRow
		for _, h := range rp.History {
			hist = append(hist, historyRow{At: h.At, Match: validID(h.Match), Rating: round(h.Rating), RD: round(h.RD), Delta: signed(round(h.Rating) - round(prev))})
			prev = h.Rating
		}
		slices.Reverse(hist)
		if len(hist) > historyRows {
			pool.More = len(hist) - historyRows
			hist = hist[:historyRows]
		}
		pool.History = hist
		v.Pools = append(v.Pools, pool)
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

func (b *builder) gameRow(s *match.State, pk string) gameRow {
	first, second := sides(s.Kind)
	r := gameRow{ID: s.Match, Game: gameName(s.Kind), Status: string(s.Status(b.in.Now)), Final: s.Final,
		Created: s.CreatedAt, Plies: s.Plies()}
	role := s.Role(pk)
	switch role {
	case match.First:
		r.Side, r.Opponent = first, b.player(s.Second)
	case match.Second:
		r.Side, r.Opponent = second, b.player(s.First)
	default:
		r.Side, r.Opponent = "invited", b.player(s.First)
	}
	if s.Over {
		r.ReasonText = reasonText(s.Reason)
		switch {
		case s.Result == match.Draw:
			r.Outcome = "draw"
		case s.Result == role:
			r.Outcome = "won"
		case role != "":
			r.Outcome = "lost"
		}
	}
	return r
}

type howtoPage struct{ Root, Title string }

func (b *builder) howtoPage() *howtoPage { return &howtoPage{Root: "", Title: "How to play"} }

package site

import (
	"cmp"
	"html/template"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"vesper/analysis"
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
	Stale       []liveRow // clock ran out: waiting for a claim or a ruling
	Open        []openRow
	Finished    []finishedRow
	More        [4]int // rows left out of Live, Open, Finished, Stale
	Pools       []poolTop
	Archives    []archiveLink
	// UnlistedArchives are the Archives that have unlisted matches.
	UnlistedArchives []archiveLink
	// Not listed (issue 17 item 6): matches with a player whose profile
	// does not declare a bot, and those accounts.
	UnlistedMatches, UnlistedFinished, UnlistedAccounts int
	// Abandoned counts the listed games whose clock ran out long ago with
	// no claim (dormant): they are in the archive, not among the live ones.
	Abandoned int
	// The leaderboards' rules, stated beside the top ten.
	ProvisionalRD, MinGames, ActiveDays, TrendDays int
}

// archiveLink is the entry to one game kind's archive: its newest page.
type archiveLink struct {
	Game, Href    string
	Count         int
	UnlistedHref  string
	UnlistedCount int
}

type liveRow struct {
	ID, Game              string
	First, Second, ToMove player
	ToMoveSide            string
	Plies                 int
	LastAt, ClockLeft     int64
	RanOutAt              int64
	DaemonPlaying         bool
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
	Abandoned                  bool // dormant: the clock ran out and no one claimed it
}

type poolTop struct {
	Kind, Game string
	Rows       []ratingRow // the top ranked players
	// Prov are the top provisional players by rating, when nobody is
	// ranked: a season's first weeks still show who leads.
	Prov                  []ratingRow
	Total                 int // every listed rated player, as on the ratings page
	Ranked                int
	Inactive, Provisional int
	Unlisted              int // rated accounts not listed, which the ratings page counts too
}

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

func (b *builder) indexPage() *indexPage {
	v := &indexPage{Root: "", Title: "Board games over Nostr", Now: b.in.Now, ListAll: b.in.ListAll,
		HasDaemon: b.in.Daemon != "", Daemon: b.player(b.in.Daemon),
		ProvisionalRD: ratings.ProvisionalRD, MinGames: minRankedGames, ActiveDays: activeDays, TrendDays: trendDays}
	live, stale, finished := b.indexSort(v)
	byActivity := func(x, y *card) int { return cmp.Compare(y.lastActivity(), x.lastActivity()) }
	slices.SortStableFunc(live, byActivity)
	slices.SortStableFunc(stale, byActivity)
	slices.SortStableFunc(finished, func(x, y *card) int { return cmp.Compare(y.EndedAt, x.EndedAt) })
	live, v.More[0] = firstCards(live, indexRows)
	stale, v.More[3] = firstCards(stale, indexRows)
	finished, v.More[2] = firstCards(finished, indexRows/2)
	for _, s := range live {
		v.Live = append(v.Live, b.liveRow(s))
	}
	for _, s := range stale {
		v.Stale = append(v.Stale, b.liveRow(s))
	}
	for _, s := range finished {
		v.Finished = append(v.Finished, b.finishedRow(s))
	}
	b.indexPools(v)
	return v
}

// firstCards is the first n of cards and how many more there are.
func firstCards(cards []*card, n int) ([]*card, int) {
	if len(cards) <= n {
		return cards, 0
	}
	return cards[:n], len(cards) - n
}

// indexSort sorts the listed matches into the index's lists: the live
// games, those whose clock ran out (waiting for a claim), the finished
// ones, and the open challenges, which it adds to v with what the index
// says of the unlisted and abandoned ones.
func (b *builder) indexSort(v *indexPage) (live, stale, finished []*card) {
	now := b.in.Now
	unlisted := map[string]bool{}
	for _, s := range b.cards { // newest challenge first
		clock := s.clock()
		if !b.matchListed(s) {
			v.UnlistedMatches++
			if clock.Status(now) == match.StatusOver {
				v.UnlistedFinished++
			}
			for _, pk := range []string{s.First, s.Second} {
				if pk != "" && !b.listed(pk) {
					unlisted[pk] = true
				}
			}
			continue
		}
		switch clock.Status(now) {
		case match.StatusActive:
			if b.dormant(s) {
				v.Abandoned++
			} else if clock.RanOut(now) {
				stale = append(stale, s)
			} else {
				live = append(live, s)
			}
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
	v.UnlistedAccounts = len(unlisted)
	return live, stale, finished
}

// indexPools adds each game's top of the ratings and its archives.
func (b *builder) indexPools(v *indexPage) {
	for _, kind := range kinds {
		rows := b.ratingRows(kind)
		top := poolTop{Kind: kind, Game: gameName(kind), Total: len(rows), Unlisted: len(b.tables[kind]) - len(rows)}
		for _, r := range rows {
			switch {
			case r.Provisional:
				top.Provisional++
				if len(top.Prov) < indexTop {
					top.Prov = append(top.Prov, r)
				}
			case r.Inactive:
				top.Inactive++
			default:
				top.Ranked++
				if len(top.Rows) < indexTop {
					top.Rows = append(top.Rows, r)
				}
			}
		}
		if top.Ranked > 0 {
			top.Prov = nil
		}
		v.Pools = append(v.Pools, top)
		a := b.archiveLink(kind)
		v.Archives = append(v.Archives, a)
		if a.UnlistedHref != "" {
			v.UnlistedArchives = append(v.UnlistedArchives, a)
		}
	}
}

func (b *builder) liveRow(s *card) liveRow {
	first, second := sides(s.Kind)
	r := liveRow{ID: s.ID, Game: gameName(s.Kind), First: b.player(s.First), Second: b.player(s.Second),
		Plies: s.Plies, LastAt: s.lastActivity(), ToMoveSide: first, ToMove: b.player(s.First),
		DaemonPlaying: b.in.Daemon != "" && (s.First == b.in.Daemon || s.Second == b.in.Daemon)}
	if s.clock().ToMove() == match.Second {
		r.ToMoveSide, r.ToMove = second, b.player(s.Second)
	}
	r.RanOutAt = s.clock().Deadline()
	r.ClockLeft = r.RanOutAt - b.in.Now
	return r
}

func (b *builder) openRow(s *card) openRow {
	r := openRow{ID: s.ID, Game: gameName(s.Kind), First: b.player(s.First), Invitee: b.player(s.Invitee),
		Age: b.in.Now - s.CreatedAt, ExpiresIn: s.clock().Expires() - b.in.Now}
	switch {
	case b.in.Daemon == "":
		r.DaemonNote = "no daemon key on this site"
	case s.Invitee != "":
		r.DaemonNote = "invitation only"
	case s.First == b.in.Daemon:
		r.DaemonNote = "the daemon's own challenge"
	default:
		b.houseOpen(&r, s)
	}
	return r
}

func (b *builder) finishedRow(s *card) finishedRow {
	r := finishedRow{ID: s.ID, Game: gameName(s.Kind), First: b.player(s.First), Second: b.player(s.Second),
		ReasonText: reasonText(s.Reason), Final: s.Final, By: string(s.FinalBy),
		EndedAt: playedUntil(s.Reason, s.EndedAt, s.clock()), Plies: s.Plies}
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

// howtoPage is the how-to: Relays are the relays the daemon reads and
// Source where vesper's source is, as the operator stated them (empty:
// not stated).
type howtoPage struct {
	Root, Title string
	Relays      []string
	Source      string
}

// maxReadRelays bounds the relays the how-to lists.
const maxReadRelays = 20

func (b *builder) howtoPage() *howtoPage {
	v := &howtoPage{Root: "", Title: "How to play", Source: sourceURL(b.in.SourceURL)}
	for _, r := range b.in.ReadRelays {
		if u, err := nostr.NormalizeRelayURL(r); err == nil && !slices.Contains(v.Relays, u) && len(v.Relays) < maxReadRelays {
			v.Relays = append(v.Relays, u)
		}
	}
	return v
}

// sourceURL is the operator's source URL when it is an http(s) URL with a
// host and nothing to hide (no user, no control characters); else "".
func sourceURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil ||
		len(s) > 300 || strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return ""
	}
	return u.String()
}

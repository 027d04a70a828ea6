package site

import (
	"cmp"
	"slices"

	"vesper/match"
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

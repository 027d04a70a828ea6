package site

import (
	"math"

	"vesper/match"
)

// The feeds are for agents: the same listing rules as the pages, without
// their row limits. Strings are cleaned as on the pages, and the JSON is
// written without HTML escaping (it is never embedded in HTML).

type ratingsFeed struct {
	GeneratedAt   int64                   `json:"generated_at"`
	Listing       string                  `json:"listing"` // "bots" or "all"
	ProvisionalRD float64                 `json:"provisional_rd"`
	Pools         map[string][]ratingJSON `json:"pools"`
}

type ratingJSON struct {
	Pubkey      string  `json:"pubkey"`
	Npub        string  `json:"npub"`
	Name        string  `json:"name"`
	Daemon      bool    `json:"daemon"`
	Rank        int     `json:"rank"`             // 0 while provisional or inactive
	ProvRank    int     `json:"provisional_rank"` // place among the provisional by rating, 0 for the others
	Inactive    bool    `json:"inactive"`         // established, but no rated game in activeDays days
	Rating      float64 `json:"rating"`
	RD          float64 `json:"rd"`     // as of the last game
	RDNow       float64 `json:"rd_now"` // grown to generated_at
	Volatility  float64 `json:"volatility"`
	Display     string  `json:"display"`
	Provisional bool    `json:"provisional"`
	Games       int     `json:"games"`
	Wins        int     `json:"wins"`
	Draws       int     `json:"draws"`
	Losses      int     `json:"losses"`
	Score       float64 `json:"score"`
	ScoreLow    float64 `json:"score_low"`
	ScoreHigh   float64 `json:"score_high"`
	LastGame    int64   `json:"last_game"`
	Page        string  `json:"page"`
}

func (b *builder) listing() string {
	if b.in.ListAll {
		return "all"
	}
	return "bots"
}

// jsonNum keeps NaN and infinities (which JSON cannot hold) out of a feed.
func jsonNum(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

func (b *builder) ratingsJSON() []byte {
	feed := ratingsFeed{GeneratedAt: b.in.Now, Listing: b.listing(), ProvisionalRD: 110,
		Pools: map[string][]ratingJSON{}}
	for _, kind := range kinds {
		list := []ratingJSON{}
		rows := map[string]ratingRow{}
		for _, r := range b.ratingRows(kind) {
			rows[r.P.Pubkey] = r
		}
		for _, p := range b.tables[kind] {
			row, ok := rows[p.Pubkey]
			if !ok {
				continue
			}
			v := b.player(p.Pubkey)
			shown := p
			shown.RD = p.RDAt(b.in.Now, b.params)
			list = append(list, ratingJSON{
				Pubkey: p.Pubkey, Npub: v.Npub, Name: v.Name, Daemon: v.Daemon, Rank: row.Rank, ProvRank: row.ProvRank, Inactive: row.Inactive,
				Rating: jsonNum(p.Rating), RD: jsonNum(p.RD), RDNow: jsonNum(shown.RD), Volatility: jsonNum(p.Volatility),
				Display: shown.Display(), Provisional: shown.Provisional(),
				Games: p.Games, Wins: p.Wins, Draws: p.Draws, Losses: p.Losses,
				Score: jsonNum(p.Score), ScoreLow: jsonNum(p.ScoreLow), ScoreHigh: jsonNum(p.ScoreHigh),
				LastGame: p.LastGame, Page: v.Href,
			})
		}
		feed.Pools[kind] = list
	}
	return match.MarshalLine(feed)
}

type matchesFeed struct {
	GeneratedAt int64        `json:"generated_at"`
	Listing     string       `json:"listing"`
	Matches     []matchEntry `json:"matches"`
}

type matchEntry struct {
	Match      string         `json:"match"`
	Game       string         `json:"game"`
	First      string         `json:"first"`
	Second     *string        `json:"second"`
	Invitee    *string        `json:"invitee"`
	Status     match.Status   `json:"status"`
	Result     *string        `json:"result"`
	Reason     *match.Reason  `json:"reason"`
	Plies      int            `json:"plies"`
	Final      bool           `json:"final"`
	FinalBy    *match.FinalBy `json:"final_by"`
	CreatedAt  int64          `json:"created_at"`
	EndedAt    *int64         `json:"ended_at"`
	Deadline   *int64         `json:"deadline"`
	DaemonGame bool           `json:"daemon_game"`
	Page       string         `json:"page"`
	JSON       string         `json:"json"`
	// Analysis is the match's analysis.json, when one is shown.
	Analysis string `json:"analysis,omitempty"`
}

// matchesJSON lists every listed match, newest challenge first. deadline is
// the arbitration deadline (section 2) while the result is not final.
func (b *builder) matchesJSON() []byte {
	feed := matchesFeed{GeneratedAt: b.in.Now, Listing: b.listing(), Matches: []matchEntry{}}
	for _, c := range b.cards {
		if !b.matchListed(c) {
			continue
		}
		m := matchEntry{
			Match: c.ID, Game: c.Kind, First: c.First, Status: c.clock().Status(b.in.Now), Plies: c.Plies, Final: c.Final,
			CreatedAt: c.CreatedAt, DaemonGame: b.in.Daemon != "" && (c.First == b.in.Daemon || c.Second == b.in.Daemon),
			Page: "m/" + c.ID + ".html", JSON: "m/" + c.ID + ".json",
		}
		// As match.State.Summary spells them.
		if c.Accepted {
			m.Second = &c.Second
		}
		if c.Over {
			m.Result, m.Reason, m.EndedAt = &c.Result, &c.Reason, &c.EndedAt
		}
		if c.Final {
			m.FinalBy = &c.FinalBy
		}
		if c.Invitee != "" {
			m.Invitee = &c.Invitee
		}
		if cardClass(c) == "done" {
			m.Analysis = analysisPath(c.ID)
		}
		if c.Accepted && !c.Final {
			d := c.clock().Deadline()
			m.Deadline = &d
		}
		feed.Matches = append(feed.Matches, m)
	}
	return match.MarshalLine(feed)
}

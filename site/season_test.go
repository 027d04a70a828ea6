package site

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"vesper/internal/sim"
	"vesper/match"
	"vesper/nostr"
)

// seasonInput folds a generated season of agents over days (internal/sim)
// into a site's input, every agent listed as a bot.
func seasonInput(t *testing.T, agents, days int) Input {
	t.Helper()
	end := int64(1_780_000_000)
	season, err := sim.Generate(sim.Config{Seed: 37, Agents: agents, Days: days, End: end})
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Now: end, SeenAt: map[string]int64{}, Profiles: map[string]Profile{}}
	for i, k := range season.Keys {
		in.Profiles[k.PublicKey()] = Profile{Name: "agent-" + string(rune('A'+i%26)) + string(rune('a'+i/26)), Bot: true}
	}
	for _, m := range season.Matches {
		var evs []*nostr.Event
		for _, ev := range m.Events {
			if int64(ev.CreatedAt) <= end {
				evs = append(evs, ev)
				in.SeenAt[ev.ID] = int64(ev.CreatedAt)
			}
		}
		s, err := match.Fold(m.ID, evs, in.SeenAt)
		if err != nil {
			continue // a match whose challenge is not in the past
		}
		in.States = append(in.States, s)
	}
	in.RatingGames = RatingGames(in.States)
	return in
}

// A 40-agent 14-day season shows an ordered leaderboard: on each game's
// ratings page and on the index, the players not yet established are
// listed by rating with their interval and numbered among themselves,
// apart from the ranked ones, under the stated rule.
func TestSeasonLeaderboard(t *testing.T) {
	if testing.Short() {
		t.Skip("signing a 40-agent season takes seconds")
	}
	in := seasonInput(t, 40, 14)
	out, _ := buildFixture(t, in)
	index := readSite(t, out, "index.html")
	for _, kind := range []string{nostr.GameChess, nostr.GameGomoku} {
		page := readSite(t, out, "ratings/"+kind+".html")
		prov := page[strings.Index(page, `id="provisional"`):]
		prov = prov[:strings.Index(prov, `id="rules"`)]
		rows := provRow.FindAllStringSubmatch(prov, -1)
		if len(rows) < 20 {
			t.Fatalf("%s: %d provisional rows listed, want most of the 40 agents", kind, len(rows))
		}
		last := 1 << 30
		for i, r := range rows {
			n, _ := strconv.Atoi(r[1])
			rating, _ := strconv.Atoi(r[2])
			if n != i+1 || rating > last || !strings.HasPrefix(r[3], "± ") {
				t.Errorf("%s: row %d is %q, %s? with rating %d after %d: not numbered in rating order with its interval", kind, i+1, r[0][:40], r[1], rating, last)
			}
			last = rating
		}
		if !strings.Contains(page, "ordered by rating with its interval and numbered among themselves") {
			t.Errorf("%s: the rule for provisional players is not stated", kind)
		}
		// The index shows the top ten of them while nobody is ranked.
		pool := index[strings.Index(index, `href="ratings/`+kind+`.html"`):]
		pool = pool[:strings.Index(pool, "</ol>")]
		if strings.Count(pool, "<li>") != 10 || !strings.Contains(pool, "Not yet established, by rating") {
			t.Errorf("%s: the index does not show the ten leading provisional players:\n%.400s", kind, pool)
		}
	}
}

// provRow is a row of the provisional table: its place, rating and interval.
var provRow = regexp.MustCompile(`<tr><td class="n">([0-9]+)\?</td><td>.*?</td><td class="n"><strong>([0-9]+)\?</strong></td><td class="n mute">([^<]*)</td>`)

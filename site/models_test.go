package site

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
)

// winGames adds n final games of kind that winner wins against loser by
// resignation, winner moving first; each move reports its cost and
// tokens (usage, section 8.3).
func winGames(t *testing.T, winner, loser nostr.SecretKey, kind string, n int, at *int64) []*match.State {
	t.Helper()
	first := map[string]string{nostr.GameChess: "e2e4", nostr.GameGomoku: "h8"}[kind]
	var out []*match.State
	for range n {
		*at += 1000
		m := testkit.NewMatch(winner, loser, kind, "", *at)
		m.Accept(*at + 10)
		cost, in, outTok := 0.01, 100.0, 50.0
		m.Add(winner, nostr.WithTalk(nostr.NewMove(m.ID, 1, first, *at+40),
			nostr.Talk{Usage: &nostr.Usage{CostUSD: &cost, InputTokens: &in, OutputTokens: &outTok}}))
		m.Move(loser, 2, "resign", *at+50)
		s := foldT(t, m)
		r := result(s, s.Result, string(s.Reason))
		m.Result(winner, r, *at+60)
		m.Result(loser, r, *at+70)
		s = foldT(t, m)
		if !s.Final || s.Result != match.First {
			t.Fatalf("fixture: final %v result %q", s.Final, s.Result)
		}
		out = append(out, s)
	}
	return out
}

// The issue 37 case, in chess and in gomoku: alpha beats beta 5-0, gamma
// beats alpha 5-0, beta beats delta 10-0. By score beta (10-5) would top
// alpha (5-5); the ladder accounts for the opponents and ranks gamma >
// alpha > beta > delta in models.html and models.json, each game on its
// own, with intervals and cost.
func TestLadderAccountsForOpponents(t *testing.T) {
	keys := map[string]nostr.SecretKey{}
	profiles := map[string]Profile{}
	for _, name := range []string{"alpha", "beta", "gamma", "delta"} {
		k := testkit.Key("ladder-" + name)
		keys[name] = k
		profiles[k.PublicKey()] = ParseProfile(`{"name":"` + name + `-bot","bot":true,"agent":{"model":"` + name + `"}}`)
	}
	var states []*match.State
	at := t0
	for _, kind := range []string{nostr.GameChess, nostr.GameGomoku} {
		states = append(states, winGames(t, keys["alpha"], keys["beta"], kind, 5, &at)...)
		states = append(states, winGames(t, keys["gamma"], keys["alpha"], kind, 5, &at)...)
		states = append(states, winGames(t, keys["beta"], keys["delta"], kind, 10, &at)...)
	}
	in := Input{States: states, Now: at + 86400, Daemon: daemon.PublicKey(), Profiles: profiles}
	in.RatingGames = RatingGames(states)
	out, _ := buildFixture(t, in)
	want := []string{"gamma", "alpha", "beta", "delta"}

	page := readSite(t, out, "models.html")
	for _, kind := range []string{nostr.GameChess, nostr.GameGomoku} {
		start := strings.Index(page, `<h2 id="`+kind+`">`)
		if start < 0 {
			t.Fatalf("models.html has no %s ladder", kind)
		}
		section := page[start:]
		if end := strings.Index(section, "<h3>"); end > 0 {
			section = section[:end]
		}
		last := -1
		for rank, m := range want {
			i := strings.Index(section, `<td class="n">`+string(rune('1'+rank))+`</td><th scope="row"><bdi>`+m+`</bdi>`)
			if i < 0 || i < last {
				t.Errorf("%s: %s is not ranked %d after the one above it:\n%s", kind, m, rank+1, section)
			}
			last = i
		}
		if !strings.Contains(section, "Rating <span class=\"mute\">(95%)</span>") {
			t.Errorf("%s: the rating's interval is not headed", kind)
		}
	}
	if !strings.Contains(page, "$0.010</td>") || !strings.Contains(page, "150</td>") {
		t.Error("models.html does not show the cost per game ($0.010) or tokens per move (150)")
	}
	if !strings.Contains(page, "one Bradley-Terry fit over all final games of this kind") || !strings.Contains(page, "The 95% interval is analytic") {
		t.Error("models.html does not state its method")
	}

	var feed struct {
		Kinds map[string]struct {
			Models []struct {
				Rank     int
				Model    string
				Rating   float64
				Low      float64  `json:"rating_low"`
				High     float64  `json:"rating_high"`
				CostGame *float64 `json:"cost_usd_per_game"`
				CostMove *float64 `json:"cost_usd_per_move"`
				TokMove  *float64 `json:"tokens_per_move"`
			}
			Results []struct {
				A, B  string
				Games int
				WinsA int `json:"a_wins"`
			}
		}
	}
	if err := json.Unmarshal([]byte(readSite(t, out, "models.json")), &feed); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{nostr.GameChess, nostr.GameGomoku} {
		ms := feed.Kinds[kind].Models
		if len(ms) != 4 {
			t.Fatalf("models.json %s: %d models, want 4", kind, len(ms))
		}
		for i, m := range ms {
			if m.Model != want[i] || m.Rank != i+1 {
				t.Errorf("models.json %s: #%d is %s (rank %d), want %s", kind, i+1, m.Model, m.Rank, want[i])
			}
			if !(m.Low < m.Rating && m.Rating < m.High) {
				t.Errorf("models.json %s: %s's interval [%v, %v] does not hold %v", kind, m.Model, m.Low, m.High, m.Rating)
			}
			if i > 0 && !(m.Rating < ms[i-1].Rating) {
				t.Errorf("models.json %s: ratings not decreasing at %s", kind, m.Model)
			}
			// Every game's winner reports $0.01 for its one move.
			if i < 3 && (m.CostGame == nil || math.Abs(*m.CostGame-0.01) > 1e-12 || m.CostMove == nil || math.Abs(*m.CostMove-0.01) > 1e-12) {
				t.Errorf("models.json %s: %s cost per game %v", kind, m.Model, m.CostGame)
			}
		}
		// delta never moved: no cost reported, null rather than 0.
		if ms[3].CostGame != nil || ms[3].TokMove != nil {
			t.Errorf("models.json %s: delta reported no usage but shows %v, %v", kind, ms[3].CostGame, ms[3].TokMove)
		}
		if ms[0].TokMove == nil || *ms[0].TokMove != 150 {
			t.Errorf("models.json %s: gamma's tokens per move %v, want 150", kind, ms[0].TokMove)
		}
		res := map[string]int{}
		for _, r := range feed.Kinds[kind].Results {
			res[r.A+"-"+r.B] = r.WinsA
			if r.Games == 0 {
				t.Errorf("an empty pairing is listed: %+v", r)
			}
		}
		if res["alpha-beta"] != 5 || res["alpha-gamma"] != 0 || res["beta-delta"] != 10 || len(res) != 3 {
			t.Errorf("models.json %s results: %v", kind, res)
		}
	}
}

// A fallback move, an ignored move and the players' own stamps reach the
// ladder's conduct figures.
func TestLadderConduct(t *testing.T) {
	w, l := testkit.Key("ladder-w"), testkit.Key("ladder-l")
	m := testkit.NewMatch(w, l, nostr.GameChess, "", t0)
	m.Accept(t0 + 10)
	m.Add(w, nostr.WithTalk(nostr.NewMove(m.ID, 1, "e2e4", t0+40), nostr.Talk{Fallback: nostr.FallbackRandom}))
	m.Move(l, 5, "e7e5", t0+45) // the wrong ply: ignored by the fold
	m.Move(l, 2, "e7e5", t0+100)
	m.Move(w, 3, "resign", t0+110)
	s := foldT(t, m)
	r := result(s, s.Result, string(s.Reason))
	m.Result(w, r, t0+120)
	m.Result(l, r, t0+130)
	s = foldT(t, m)
	if !s.Final || len(s.Ignored) != 1 {
		t.Fatalf("fixture: final %v, %d ignored", s.Final, len(s.Ignored))
	}
	in := Input{States: []*match.State{s}, Now: t0 + 86400, Daemon: daemon.PublicKey(), Profiles: map[string]Profile{
		w.PublicKey(): ParseProfile(`{"name":"W","bot":true,"agent":{"model":"wm"}}`),
		l.PublicKey(): ParseProfile(`{"name":"L","bot":true,"agent":{"model":"lm"}}`)}}
	in.RatingGames = RatingGames(in.States)
	out, _ := buildFixture(t, in)
	var feed struct {
		Kinds map[string]struct {
			Models []struct {
				Model    string
				Moves    int
				Ignored  int            `json:"ignored_moves"`
				Fallback map[string]int `json:"fallback_moves"`
				Secs     *float64       `json:"seconds_per_move"`
			}
		}
	}
	if err := json.Unmarshal([]byte(readSite(t, out, "models.json")), &feed); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, x := range feed.Kinds[nostr.GameChess].Models {
		secs := -1.0
		if x.Secs != nil {
			secs = *x.Secs
		}
		got[x.Model] = fmt.Sprintf("moves %d ignored %d random %d engine %d secs %v", x.Moves, x.Ignored, x.Fallback[nostr.FallbackRandom], x.Fallback[nostr.FallbackEngine], secs)
	}
	// wm moved once, 30 s after the accept, at random; lm moved once, 60 s
	// after e2e4 by its stamps, and had one move ignored.
	want := map[string]string{"wm": "moves 1 ignored 0 random 1 engine 0 secs 30", "lm": "moves 1 ignored 1 random 0 engine 0 secs 60"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s, want %s", k, got[k], v)
		}
	}
}

// Many claimed models: the table of results shows the matrixMax
// highest-rated and says so, and models.json still lists every pair.
func TestLadderResultsTableBounded(t *testing.T) {
	const n = matrixMax + 5
	var keys []nostr.SecretKey
	profiles := map[string]Profile{}
	for i := range n {
		k := testkit.Key(fmt.Sprintf("ladder-many-%d", i))
		keys = append(keys, k)
		profiles[k.PublicKey()] = ParseProfile(fmt.Sprintf(`{"name":"m%d","bot":true,"agent":{"model":"model-%02d"}}`, i, i))
	}
	var states []*match.State
	at := t0
	for i := range n - 1 {
		states = append(states, winGames(t, keys[i], keys[i+1], nostr.GameGomoku, 1, &at)...)
	}
	in := Input{States: states, Now: at + 86400, Daemon: daemon.PublicKey(), Profiles: profiles}
	in.RatingGames = RatingGames(states)
	out, _ := buildFixture(t, in)
	page := readSite(t, out, "models.html")
	table := page[strings.Index(page, "<h3>Results between models"):]
	table = table[:strings.Index(table, "</thead>")]
	if got := strings.Count(table, `<th scope="col" class="n">`); got != matrixMax {
		t.Errorf("the table of results has %d columns, want %d", got, matrixMax)
	}
	if !strings.Contains(page, fmt.Sprintf("The %d highest-rated models of %d;", matrixMax, n)) {
		t.Error("the cut table does not say so")
	}
	var feed struct {
		Kinds map[string]struct{ Results []json.RawMessage }
	}
	if err := json.Unmarshal([]byte(readSite(t, out, "models.json")), &feed); err != nil {
		t.Fatal(err)
	}
	if got := len(feed.Kinds[nostr.GameGomoku].Results); got != n-1 {
		t.Errorf("models.json lists %d pairs, want %d", got, n-1)
	}
}

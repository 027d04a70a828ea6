package ratings

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

const day = 86400

// Lichess's one-game case through Rate: two new players (1500/500/0.09).
func TestRateNewPlayers(t *testing.T) {
	tests := []struct {
		result           string
		first, second    float64 // ratings after
		rd, vol          float64
		wins, draws, los int // the first player's
	}{
		{"first", 1741, 1258, 396, 0.0899983, 1, 0, 0},
		{"second", 1258, 1741, 396, 0.0899983, 0, 0, 1},
		{"draw", 1500, 1500, 396, 0.0899954, 0, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.result, func(t *testing.T) {
			got := Rate("chess", []Game{{Match: "m1", Kind: "chess", First: "a", Second: "b", Result: tt.result, At: 1_000_000}}, LichessParams())
			a, b := got["a"], got["b"]
			if len(got) != 2 || a == nil || b == nil {
				t.Fatalf("Rate = %v, want players a and b", got)
			}
			if !near(a.Rating, tt.first, 1) || !near(b.Rating, tt.second, 1) {
				t.Errorf("ratings = %v, %v, want %v, %v", a.Rating, b.Rating, tt.first, tt.second)
			}
			for _, p := range []*Player{a, b} {
				if !near(p.RD, tt.rd, 1) || !near(p.Volatility, tt.vol, 0.0000001) {
					t.Errorf("%s: RD %v vol %v, want %v %v", p.Pubkey, p.RD, p.Volatility, tt.rd, tt.vol)
				}
			}
			if a.Wins != tt.wins || a.Draws != tt.draws || a.Losses != tt.los || a.Games != 1 {
				t.Errorf("a: %d games %d-%d-%d, want 1 game %d-%d-%d", a.Games, a.Wins, a.Draws, a.Losses, tt.wins, tt.draws, tt.los)
			}
			if b.Wins != tt.los || b.Draws != tt.draws || b.Losses != tt.wins {
				t.Errorf("b: %d-%d-%d, want the mirror of a's", b.Wins, b.Draws, b.Losses)
			}
		})
	}
}

// randomGames is a deterministic pool: players p00..p(n-1), one game per
// hour or so, many at the same second so the match-id tie-break matters.
func randomGames(seed uint64, games, players int) []Game {
	rng := rand.New(rand.NewPCG(seed, 0))
	kinds := []string{"chess", "gomoku"}
	results := []string{"first", "second", "draw"}
	out := make([]Game, games)
	at := int64(1_700_000_000)
	for i := range out {
		a := rng.IntN(players)
		b := (a + 1 + rng.IntN(players-1)) % players
		at += int64(rng.IntN(2)) * int64(rng.IntN(3*day))
		out[i] = Game{
			Match:  fmt.Sprintf("%016x", rng.Uint64()),
			Kind:   kinds[rng.IntN(2)],
			First:  fmt.Sprintf("p%03d", a),
			Second: fmt.Sprintf("p%03d", b),
			Result: results[rng.IntN(3)],
			At:     at,
		}
	}
	return out
}

// The output depends on the set of games only, never on their order.
func TestRateOrderIndependent(t *testing.T) {
	games := randomGames(1, 600, 25)
	want := Rate("chess", games, LichessParams())

	reversed := slices.Clone(games)
	slices.Reverse(reversed)
	shuffled := slices.Clone(games)
	rand.New(rand.NewPCG(2, 0)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })

	for name, gs := range map[string][]Game{"reversed": reversed, "shuffled": shuffled, "same": games} {
		t.Run(name, func(t *testing.T) {
			if got := Rate("chess", gs, LichessParams()); !reflect.DeepEqual(got, want) {
				t.Errorf("Rate of %s games differs from Rate of the original order", name)
			}
		})
	}
	if reflect.DeepEqual(Rate("chess", games, LichessParams()), Rate("gomoku", games, LichessParams())) {
		t.Errorf("chess and gomoku pools came out equal: kinds are not separated")
	}
}

// Games at the same second are rated in match-id order; a second result
// for a match id is ignored, whatever order the input has.
func TestRateCanonicalOrder(t *testing.T) {
	games := []Game{
		{Match: "m2", Kind: "chess", First: "a", Second: "b", Result: "first", At: 10},
		{Match: "m1", Kind: "chess", First: "a", Second: "b", Result: "second", At: 10},
		{Match: "m1", Kind: "chess", First: "a", Second: "b", Result: "first", At: 5}, // the earlier m1 counts
		{Match: "m3", Kind: "chess", First: "b", Second: "a", Result: "draw", At: 3},
	}
	a := Rate("chess", games, LichessParams())["a"]
	var got []string
	for _, p := range a.History {
		got = append(got, fmt.Sprintf("%s@%d", p.Match, p.At))
	}
	if want := []string{"m3@3", "m1@5", "m2@10"}; !slices.Equal(got, want) {
		t.Errorf("a's history = %v, want %v", got, want)
	}
	if a.Wins != 2 || a.Draws != 1 || a.Losses != 0 || a.Games != 3 {
		t.Errorf("a: %d games %d-%d-%d, want 3 games 2-1-0", a.Games, a.Wins, a.Draws, a.Losses)
	}
}

func TestRateSkips(t *testing.T) {
	ok := Game{Match: "ok", Kind: "chess", First: "a", Second: "b", Result: "draw", At: 1}
	tests := []struct {
		name string
		game Game
	}{
		{"other kind", Game{Match: "x", Kind: "gomoku", First: "c", Second: "d", Result: "first", At: 2}},
		{"unknown result", Game{Match: "x", Kind: "chess", First: "c", Second: "d", Result: "white", At: 2}},
		{"no result", Game{Match: "x", Kind: "chess", First: "c", Second: "d", At: 2}},
		{"self play", Game{Match: "x", Kind: "chess", First: "c", Second: "c", Result: "first", At: 2}},
		{"no second player", Game{Match: "x", Kind: "chess", First: "c", Result: "first", At: 2}},
		{"no first player", Game{Match: "x", Kind: "chess", Second: "c", Result: "first", At: 2}},
	}
	want := Rate("chess", []Game{ok}, LichessParams())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Rate("chess", []Game{ok, tt.game}, LichessParams())
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Rate with %+v = %d players, want the game skipped", tt.game, len(got))
			}
		})
	}
	if got := Rate("chess", nil, LichessParams()); len(got) != 0 {
		t.Errorf("Rate(nil) = %v, want no players", got)
	}
}

// RD grows with idle time before a game, from the player's last game; a
// new player has none, however late their first game is.
func TestRateIdleGrowth(t *testing.T) {
	p := LichessParams()
	// a and b settle with 30 draws a day apart, then a meets c, a newcomer.
	var base []Game
	for i := range 30 {
		base = append(base, Game{Match: fmt.Sprintf("d%02d", i), Kind: "chess", First: "a", Second: "b", Result: "draw", At: int64(i) * day})
	}
	last := int64(29 * day)
	rateAfter := func(idle int64) (*Player, *Player) {
		g := Game{Match: "z", Kind: "chess", First: "a", Second: "c", Result: "first", At: last + idle}
		r := Rate("chess", append(slices.Clone(base), g), p)
		return r["a"], r["c"]
	}
	settled := Rate("chess", base, p)["a"]

	a0, c0 := rateAfter(0)
	a1, c1 := rateAfter(365 * day)
	if gain0, gain1 := a0.Rating-settled.Rating, a1.Rating-settled.Rating; !(gain1 > gain0 && gain0 > 0) {
		t.Errorf("win right away gains %v, a year later %v; want both > 0 and the later one larger", gain0, gain1)
	}
	if !(a1.RD > a0.RD) {
		t.Errorf("RD after the game: %v right away, %v after a year idle; want the idle one larger", a0.RD, a1.RD)
	}
	// c is new in both: only a's RD differs, so c's loss differs, but c's
	// own starting RD must be the new-player RD in both games.
	for _, c := range []*Player{c0, c1} {
		if c.Games != 1 || c.History[0].RD >= p.RD || c.Rating >= p.Rating {
			t.Errorf("newcomer after one loss: %+v", *c)
		}
	}
	// The pre-game RD is RDAt of the game time.
	phi := settled.RD / scale
	want := scale * math.Sqrt(phi*phi+365*p.PeriodsPerDay*settled.Volatility*settled.Volatility)
	if got := settled.RDAt(last+365*day, p); !near(got, want, 1e-9) {
		t.Errorf("RDAt a year on = %v, want %v", got, want)
	}

	// A newcomer's first game is the same whenever it happens.
	early := Rate("chess", []Game{{Match: "m", Kind: "chess", First: "x", Second: "y", Result: "first", At: 0}}, p)["x"]
	late := Rate("chess", []Game{{Match: "m", Kind: "chess", First: "x", Second: "y", Result: "first", At: 1e9}}, p)["x"]
	if early.Rating != late.Rating || early.RD != late.RD || early.Volatility != late.Volatility {
		t.Errorf("first game at 0 gives %v/%v, at 1e9 gives %v/%v", early.Rating, early.RD, late.Rating, late.RD)
	}
}

// The bounds of Params hold after every game.
func TestRateBounds(t *testing.T) {
	t.Run("RD floor", func(t *testing.T) {
		var games []Game
		for i := range 200 {
			games = append(games, Game{Match: fmt.Sprintf("m%03d", i), Kind: "chess", First: "a", Second: "b", Result: "draw", At: int64(i)})
		}
		if a := Rate("chess", games, LichessParams())["a"]; a.RD != 45 {
			t.Errorf("RD after 200 draws = %v, want the floor 45", a.RD)
		}
	})
	t.Run("rating floor", func(t *testing.T) {
		p := LichessParams()
		p.MinRating = 1400
		b := Rate("chess", []Game{{Match: "m", Kind: "chess", First: "a", Second: "b", Result: "first", At: 1}}, p)["b"]
		if b.Rating != 1400 || b.History[0].Rating != 1400 {
			t.Errorf("loser's rating = %v (history %v), want the floor 1400", b.Rating, b.History[0].Rating)
		}
	})
	t.Run("all bounds over a random pool", func(t *testing.T) {
		p := LichessParams()
		for _, pl := range Rate("gomoku", randomGames(3, 2000, 30), p) {
			if pl.Rating < p.MinRating || pl.RD < p.MinRD || pl.RD > p.MaxRD || pl.Volatility > p.MaxVolatility || pl.Volatility <= 0 {
				t.Errorf("%s out of bounds: %v/%v/%v", pl.Pubkey, pl.Rating, pl.RD, pl.Volatility)
			}
		}
	})
}

func TestRateRecord(t *testing.T) {
	games := []Game{
		{Match: "m1", Kind: "chess", First: "a", Second: "b", Result: "first", At: 100},
		{Match: "m2", Kind: "chess", First: "b", Second: "a", Result: "first", At: 200},
		{Match: "m3", Kind: "chess", First: "a", Second: "c", Result: "draw", At: 300},
		{Match: "m4", Kind: "chess", First: "c", Second: "a", Result: "second", At: 400},
	}
	a := Rate("chess", games, LichessParams())["a"]
	if a.Games != 4 || a.Wins != 2 || a.Draws != 1 || a.Losses != 1 {
		t.Errorf("a: %d games %d-%d-%d, want 4 games 2-1-1", a.Games, a.Wins, a.Draws, a.Losses)
	}
	if a.Score != 0.625 {
		t.Errorf("score = %v, want 0.625", a.Score)
	}
	if lo, hi := Wilson(0.625, 4); a.ScoreLow != lo || a.ScoreHigh != hi {
		t.Errorf("interval = [%v, %v], want [%v, %v]", a.ScoreLow, a.ScoreHigh, lo, hi)
	}
	if a.LastGame != 400 || len(a.History) != 4 {
		t.Fatalf("last game %d, %d points; want 400, 4", a.LastGame, len(a.History))
	}
	lastPoint := a.History[3]
	if lastPoint != (Point{At: 400, Match: "m4", Rating: a.Rating, RD: a.RD}) {
		t.Errorf("last point = %+v, want the current rating at 400 in m4", lastPoint)
	}
}

func TestTable(t *testing.T) {
	games := []Game{
		{Match: "m1", Kind: "chess", First: "d", Second: "c", Result: "second", At: 1},
		{Match: "m2", Kind: "chess", First: "b", Second: "a", Result: "draw", At: 1},
		{Match: "m3", Kind: "gomoku", First: "e", Second: "f", Result: "first", At: 1},
	}
	var got []string
	for _, p := range Table("chess", games, LichessParams()) {
		got = append(got, p.Pubkey+" "+p.Display())
	}
	want := []string{"c 1741 ± 793?", "a 1500 ± 793?", "b 1500 ± 793?", "d 1259 ± 793?"}
	if !slices.Equal(got, want) {
		t.Errorf("Table = %q, want %q", got, want)
	}
	if got := Table("chess", nil, LichessParams()); len(got) != 0 {
		t.Errorf("Table(nil) = %v, want empty", got)
	}
}

// Invalid Params must not panic or hang.
func TestRateInvalidParams(t *testing.T) {
	games := randomGames(4, 200, 10)
	for name, p := range map[string]Params{
		"zero":    {},
		"NaN":     {Rating: math.NaN(), RD: math.NaN(), Volatility: math.NaN(), Tau: math.NaN()},
		"no tau":  {Rating: 1500, RD: 350, Volatility: 0.06, MaxRD: 350, MaxVolatility: 1},
		"huge RD": {Rating: 1500, RD: 1e300, Volatility: 0.06, Tau: 0.5, MaxRD: math.Inf(1), MaxVolatility: 1},
	} {
		t.Run(name, func(t *testing.T) {
			Table("chess", games, p)
		})
	}
}

func BenchmarkRate100k(b *testing.B) {
	games := randomGames(5, 100_000, 2000)
	for i := range games {
		games[i].Kind = "chess"
	}
	p := LichessParams()
	b.ReportAllocs()
	for b.Loop() {
		Rate("chess", games, p)
	}
}

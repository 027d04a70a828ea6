package ratings

import (
	"math"
	"testing"
)

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

// Glickman, "Example of the Glicko-2 system", section "Example calculation":
// one period of three games at tau 0.5. The paper prints 1464.06 because it
// rounds intermediate values; computed without rounding the rating is
// 1464.05. The paper's volatility 0.05999 is cut at five decimals (the
// unrounded value is 0.0599960), hence its tolerance of 0.00001.
func TestUpdateGlickmanExample(t *testing.T) {
	player := Glicko{Rating: 1500, RD: 200, Volatility: 0.06}
	opponents := []Opponent{
		{Rating: 1400, RD: 30, Score: 1},
		{Rating: 1550, RD: 100, Score: 0},
		{Rating: 1700, RD: 300, Score: 0},
	}
	got := Update(player, opponents, 0.5)
	want := Glicko{Rating: 1464.05, RD: 151.52, Volatility: 0.05999}
	if !near(got.Rating, want.Rating, 0.005) || !near(got.RD, want.RD, 0.005) || !near(got.Volatility, want.Volatility, 0.00001) {
		t.Errorf("Update = %+v, want %+v", got, want)
	}
}

// The paper: a player who does not compete keeps rating and volatility and
// their RD grows by one period, phi' = sqrt(phi^2 + sigma^2).
func TestUpdateNoGames(t *testing.T) {
	player := Glicko{Rating: 1500, RD: 200, Volatility: 0.06}
	got := Update(player, nil, 0.5)
	phi := 200 / scale
	want := Glicko{Rating: 1500, RD: scale * math.Sqrt(phi*phi+0.06*0.06), Volatility: 0.06}
	if got != want {
		t.Errorf("Update = %+v, want %+v", got, want)
	}
}

// Lichess's published one-game cases (lila modules/rating/src/test/
// RatingCalculatorTest.scala and scalachess GlickoCalculatorTest.scala):
// each game its own period, tau 0.75, no period added in step 6. Tolerances
// are the ones those tests use.
func TestPlayLichessCases(t *testing.T) {
	type side struct{ rating, rd, vol float64 }
	tests := []struct {
		name           string
		white, black   Glicko
		score          float64 // white's
		w, b           side
		tolR, tolD     float64
		tolV           float64
		drawRDBlack    float64 // when non-zero, a tighter published figure for black's RD
		drawRDBlackTol float64
	}{
		{"new players, white wins", Glicko{1500, 500, 0.09}, Glicko{1500, 500, 0.09}, 1,
			side{1741, 396, 0.0899983}, side{1258, 396, 0.0899983}, 1, 1, 0.0000001, 0, 0},
		{"new players, black wins", Glicko{1500, 500, 0.09}, Glicko{1500, 500, 0.09}, 0,
			side{1258, 396, 0.0899983}, side{1741, 396, 0.0899983}, 1, 1, 0.0000001, 0, 0},
		{"new players, draw", Glicko{1500, 500, 0.09}, Glicko{1500, 500, 0.09}, 0.5,
			side{1500, 396, 0.0899954}, side{1500, 396, 0.0899954}, 1, 1, 0.0000001, 0, 0},
		{"RD 350, white wins", Glicko{1500, 350, 0.06}, Glicko{1500, 350, 0.06}, 1,
			side{1662.21, 290.23, 0.0599993}, side{1337.79, 290.23, 0.0599993}, 0.005, 0.005, 0.0000001, 0, 0},
		{"low deviation, white wins", Glicko{1500, 80, 0.06}, Glicko{1500, 80, 0.06}, 1,
			side{1517, 78, 0.06}, side{1482, 78, 0.06}, 1, 1, 0.00001, 0, 0},
		{"low deviation, draw", Glicko{1500, 80, 0.06}, Glicko{1500, 80, 0.06}, 0.5,
			side{1500, 78, 0.06}, side{1500, 78, 0.06}, 1, 1, 0.00001, 0, 0},
		{"mixed, white wins", Glicko{1400, 79, 0.06}, Glicko{1550, 110, 0.065}, 1,
			side{1422, 77, 0.06}, side{1506, 105, 0.065}, 1, 1, 0.00001, 0, 0},
		{"mixed, black wins", Glicko{1400, 79, 0.06}, Glicko{1550, 110, 0.065}, 0,
			side{1389, 78, 0.06}, side{1568, 105, 0.065}, 1, 1, 0.00001, 0, 0},
		{"mixed, draw", Glicko{1400, 79, 0.06}, Glicko{1550, 110, 0.065}, 0.5,
			side{1406, 78, 0.06}, side{1537, 105, 0.065}, 1, 1, 0.00001, 105.87, 0.01},
		{"more mixed, white wins", Glicko{1200, 60, 0.053}, Glicko{1850, 200, 0.062}, 1,
			side{1216.7, 59.9, 0.053013}, side{1636, 196.9, 0.062028}, 0.1, 0.1, 0.000001, 0, 0},
		{"more mixed, black wins", Glicko{1200, 60, 0.053}, Glicko{1850, 200, 0.062}, 0,
			side{1199.3, 59.9, 0.052999}, side{1855.4, 196.9, 0.061999}, 0.1, 0.1, 0.000001, 0, 0},
		{"more mixed, draw", Glicko{1200, 60, 0.053}, Glicko{1850, 200, 0.062}, 0.5,
			side{1208.0, 59.90056, 0.053002}, side{1745.7, 196.98729, 0.062006}, 0.1, 0.1, 0.000001, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, b := play(tt.white, tt.black, tt.score, 0.75)
			for _, c := range []struct {
				name string
				got  Glicko
				want side
			}{{"white", w, tt.w}, {"black", b, tt.b}} {
				if !near(c.got.Rating, c.want.rating, tt.tolR) || !near(c.got.RD, c.want.rd, tt.tolD) || !near(c.got.Volatility, c.want.vol, tt.tolV) {
					t.Errorf("%s = %+v, want %+v", c.name, c.got, c.want)
				}
			}
			if tt.drawRDBlack != 0 && !near(b.RD, tt.drawRDBlack, tt.drawRDBlackTol) {
				t.Errorf("black RD = %v, want %v", b.RD, tt.drawRDBlack)
			}
		})
	}
}

// Degenerate input must end and must not leave NaN where a finite answer
// exists.
func TestUpdateDegenerate(t *testing.T) {
	tests := []struct {
		name      string
		player    Glicko
		opponents []Opponent
		tau       float64
		finite    bool
	}{
		{"certain win, E is 1", Glicko{1e6, 50, 0.06}, []Opponent{{0, 50, 1}}, 0.75, true},
		{"certain loss that happened anyway", Glicko{1e6, 50, 0.06}, []Opponent{{0, 50, 0}}, 0.75, true},
		{"zero tau", Glicko{1500, 200, 0.06}, []Opponent{{1400, 30, 1}}, 0, false},
		{"zero volatility", Glicko{1500, 200, 0}, []Opponent{{1400, 30, 1}}, 0.5, false},
		{"NaN rating", Glicko{math.NaN(), 200, 0.06}, []Opponent{{1400, 30, 1}}, 0.5, false},
		{"infinite opponent RD", Glicko{1500, 200, 0.06}, []Opponent{{1400, math.Inf(1), 1}}, 0.5, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Update(tt.player, tt.opponents, tt.tau)
			if tt.finite && !finite(got) {
				t.Errorf("Update = %+v, want finite values", got)
			}
		})
	}
}

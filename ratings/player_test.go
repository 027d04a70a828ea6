package ratings

import (
	"math"
	"strings"
	"testing"
)

func TestDisplay(t *testing.T) {
	tests := []struct {
		rating, rd  float64
		want        string
		provisional bool
	}{
		{1741.4758, 396.6898, "1741 ± 793?", true},
		{1520.4, 45, "1520 ± 90", false},
		{1520.5, 45.25, "1521 ± 91", false},
		{1600, 110, "1600 ± 220?", true},
		{1600, 109.99, "1600 ± 220", false},
		{400, 500, "400 ± 1000?", true},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			p := Player{Rating: tt.rating, RD: tt.rd}
			if got := p.Display(); got != tt.want {
				t.Errorf("Display() = %q, want %q", got, tt.want)
			}
			if got := p.Provisional(); got != tt.provisional {
				t.Errorf("Provisional() = %v, want %v", got, tt.provisional)
			}
		})
	}
}

func TestWilson(t *testing.T) {
	tests := []struct {
		name   string
		p      float64
		n      int
		lo, hi float64
	}{
		{"7 of 10", 0.7, 10, 0.3968, 0.8922}, // the textbook figures, 4 decimals
		{"1 of 1", 1, 1, 0.2065, 1},
		{"0 of 1", 0, 1, 0, 0.7935},
		{"half of 100", 0.5, 100, 0.4038, 0.5962},
		{"no games", 0, 0, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo, hi := Wilson(tt.p, tt.n)
			if !near(lo, tt.lo, 0.00005) || !near(hi, tt.hi, 0.00005) {
				t.Errorf("Wilson(%v, %d) = [%.5f, %.5f], want [%v, %v]", tt.p, tt.n, lo, hi, tt.lo, tt.hi)
			}
		})
	}
}

// Lichess chose 0.21436 periods a day so that a typical player's RD goes
// from 60 to 110 in a year (lila Glicko.scala); RDAt must reproduce that.
func TestRDAt(t *testing.T) {
	p := LichessParams()
	typical := Player{Rating: 1800, RD: 60, Volatility: 0.06, Games: 50, LastGame: 1000}
	tests := []struct {
		name   string
		player Player
		now    int64
		want   float64
		tol    float64
	}{
		{"a year idle", typical, 1000 + 365*day, 110, 0.01},
		{"no time passed", typical, 1000, 60, 0},
		{"clock before last game", typical, 0, 60, 0},
		{"decades idle hit the cap", typical, 1000 + 100*365*day, 500, 0},
		{"floor", Player{RD: 30, Volatility: 0.06, Games: 1}, 0, 45, 0},
		{"new player", Player{RD: 500, Volatility: 0.09}, 1e9, 500, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.player.RDAt(tt.now, p); !near(got, tt.want, tt.tol) {
				t.Errorf("RDAt = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	with := func(change func(*Params)) Params {
		p := LichessParams()
		change(&p)
		return p
	}
	tests := []struct {
		name   string
		params Params
		want   string // "" for valid, else a fragment of the error
	}{
		{"lichess", LichessParams(), ""},
		{"no caps", with(func(p *Params) {
			p.MaxRD, p.MaxVolatility, p.MinRating, p.MinRD = math.Inf(1), math.Inf(1), math.Inf(-1), 0
		}), ""},
		{"zero", Params{}, "ratings: Tau 0"},
		{"negative tau", with(func(p *Params) { p.Tau = -1 }), "Tau -1"},
		{"NaN rating", with(func(p *Params) { p.Rating = math.NaN() }), "Rating NaN"},
		{"zero volatility", with(func(p *Params) { p.Volatility = 0 }), "Volatility 0"},
		{"cap below start volatility", with(func(p *Params) { p.MaxVolatility = 0.05 }), "MaxVolatility 0.05"},
		{"RD above cap", with(func(p *Params) { p.RD = 600 }), "MaxRD 500"},
		{"RD below floor", with(func(p *Params) { p.RD = 40 }), "RD 40"},
		{"negative periods", with(func(p *Params) { p.PeriodsPerDay = -1 }), "PeriodsPerDay -1"},
		{"rating floor +Inf", with(func(p *Params) { p.MinRating = math.Inf(1) }), "MinRating +Inf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.params.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Validate() = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

package model

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
)

// Price is what one model costs, in US dollars per million tokens.
type Price struct {
	Input  float64 `json:"input"`
	Output float64 `json:"output"`
}

// Prices is a price table: the date its prices were read, and per model
// ("provider/name") the price. Reasoning tokens are billed as output by
// both providers and are counted in the output tokens they report.
type Prices struct {
	Date   string           `json:"date"`
	Source string           `json:"source,omitempty"`
	Models map[string]Price `json:"models"`
}

//go:embed prices.json
var pinned []byte

// Pinned is the table kept in the repository.
func Pinned() Prices {
	p, err := parsePrices(pinned)
	if err != nil {
		panic("model: the pinned prices.json: " + err.Error())
	}
	return p
}

// LoadPrices reads a --price-file (the same form as prices.json): its
// models are laid over the pinned table's, its date replaces the pinned.
func LoadPrices(path string) (Prices, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Prices{}, fmt.Errorf("--price-file: %w", err)
	}
	own, err := parsePrices(b)
	if err != nil {
		return Prices{}, fmt.Errorf("--price-file %s: %w", path, err)
	}
	p := Pinned()
	p.Date, p.Source = own.Date, path
	for k, v := range own.Models {
		p.Models[k] = v
	}
	return p, nil
}

func parsePrices(b []byte) (Prices, error) {
	var p Prices
	if err := json.Unmarshal(b, &p); err != nil {
		return Prices{}, fmt.Errorf("not a price table: %w", err)
	}
	if p.Date == "" {
		return Prices{}, fmt.Errorf(`a price table needs its "date"`)
	}
	for k, v := range p.Models {
		if !strings.Contains(k, "/") {
			return Prices{}, fmt.Errorf("model %q: want provider/name", k)
		}
		if v.Input < 0 || v.Output < 0 || math.IsNaN(v.Input+v.Output) || math.IsInf(v.Input+v.Output, 0) {
			return Prices{}, fmt.Errorf("model %q: prices must be finite and non-negative", k)
		}
	}
	if p.Models == nil {
		p.Models = map[string]Price{}
	}
	return p, nil
}

// Cost is the price of a call of model with these token counts: ok false
// when the model has no price or a count is missing (never a guess).
func (p Prices) Cost(model string, input, output *float64) (usd float64, ok bool) {
	pr, known := p.Models[model]
	if !known || input == nil || output == nil {
		return 0, false
	}
	return (*input*pr.Input + *output*pr.Output) / 1e6, true
}

package analysis

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
)

// Marshal encodes g as analysis.json: one line of JSON and a newline, the
// same bytes for the same analysis. Every figure is rounded to one decimal
// first (Go prints the shortest decimal that reads back as the same
// float64, so a rounded figure prints as that decimal); maps print with
// sorted keys; absent lists print as []; nothing is HTML-escaped.
func Marshal(g *Game) []byte {
	if g == nil {
		return []byte("null\n")
	}
	c := *g
	c.Moves = make([]Move, len(g.Moves))
	for i, m := range g.Moves {
		m.WinBefore, m.WinAfter, m.Accuracy = round1(m.WinBefore), round1(m.WinAfter), round1(m.Accuracy)
		c.Moves[i] = m
	}
	c.Players = make([]Player, len(g.Players))
	for i, p := range g.Players {
		p.Accuracy, p.ACPL = round1(p.Accuracy), round1(p.ACPL)
		p.Counts = maps.Clone(p.Counts)
		if p.Counts == nil {
			p.Counts = map[Tag]int{}
		}
		c.Players[i] = p
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&c); err != nil {
		// The types hold nothing encoding/json refuses (no NaN survives
		// round1's callers: every figure is a finite formula's value).
		return []byte(`{"format":` + fmt.Sprint(FormatVersion) + `,"status":"failed","error":"encoding failed"}` + "\n")
	}
	return b.Bytes()
}

// Parse decodes analysis.json, refusing a format this build does not read.
func Parse(b []byte) (*Game, error) {
	var g Game
	if err := json.Unmarshal(b, &g); err != nil {
		return nil, fmt.Errorf("analysis: %w", err)
	}
	if g.Format != FormatVersion {
		return nil, fmt.Errorf("analysis: format %d, this build reads %d", g.Format, FormatVersion)
	}
	return &g, nil
}

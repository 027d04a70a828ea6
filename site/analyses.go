package site

import (
	"fmt"

	"vesper/analysis"
)

// Where a build finds a match's analysis. With Input.AnalysisStatus the
// caller holds the analyses elsewhere (the store), and the build loads one
// only where it needs its content: to grade the card of a match it made a
// card for, and to render the page of a match whose card shows grades.
// Everything else (a card carried over, a failed analysis, one still to
// come) needs the status alone.

// heldAnalysis is a match's analysis as far as the build has it without a
// load: the entry in Analyses, or, for a match AnalysisStatus knows and
// Analyses does not hold, a stand-in with only its status, which is all a
// card and a page read of an analysis that is not done. later says that
// the analysis is done and must be loaded (loadAnalysis) for its grades.
func (b *builder) heldAnalysis(id string) (g *analysis.Game, later bool) {
	if b.in.AnalysisStatus == nil {
		return b.in.Analyses[id], false
	}
	st, ok := b.in.AnalysisStatus[id]
	switch {
	case !ok:
		return nil, false
	case b.in.Analyses[id] != nil:
		return b.in.Analyses[id], false
	case st == analysis.StatusDone:
		return nil, true
	}
	return &analysis.Game{Status: st}, false
}

// analysisOf is a match's analysis, loaded when the build does not hold it.
func (b *builder) analysisOf(id string) (*analysis.Game, error) {
	if g, later := b.heldAnalysis(id); !later {
		return g, nil
	}
	return b.loadAnalysis(id)
}

// loadAnalysis asks the caller for a done analysis it did not pass.
func (b *builder) loadAnalysis(id string) (*analysis.Game, error) {
	if b.in.LoadAnalysis == nil {
		return nil, fmt.Errorf("site: match %s: its analysis is done, but there is no LoadAnalysis to read it", id)
	}
	g, err := b.in.LoadAnalysis(id)
	if err != nil {
		return nil, fmt.Errorf("site: analysis of match %s: %w", id, err)
	}
	return g, nil
}

// statusClass is what a card made from an analysis with this status would
// record, before its content is checked: gradesNone (no analysis, or a
// status this build does not know), gradesFailed or "done". A done
// analysis that does not fit the game records gradesMisfit, whose status
// class is "done" (cardStatus).
func statusClass(st analysis.Status, ok bool) string {
	switch {
	case !ok:
		return gradesNone
	case st == analysis.StatusDone:
		return "done"
	case st == analysis.StatusFailed:
		return gradesFailed
	}
	return gradesNone
}

// cardStatus is statusClass of the analysis a card was made from.
func cardStatus(c *card) string {
	if r := cardRecord(c); r != gradesMisfit {
		return r
	}
	return "done"
}

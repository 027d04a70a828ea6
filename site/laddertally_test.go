package site

import (
	"testing"

	"vesper/match"
)

// TestLadderCellsFromEachSide: a pair is counted once, from the side of
// the model that sorts first; the table's cell and the feed's entry are
// turned to the side that shows them. Here beta (ranked first) lost two
// games to alpha and won one, so beta's row says 1-0-2 and alpha's 2-0-1,
// and the feed, beta listed first, says the same.
func TestLadderCellsFromEachSide(t *testing.T) {
	tally := ladderTally{rows: map[string]*modelRow{
		"alpha": {Model: "alpha", Stated: true},
		"beta":  {Model: "beta", Stated: true},
	}, pairs: map[modelPair]*resultCell{}}
	// alpha plays first in each; beta wins once.
	tally.addPair("alpha", "beta", match.First)
	tally.addPair("beta", "alpha", match.Second)
	tally.addPair("alpha", "beta", match.Second)
	models := []modelRow{{Model: "beta", Stated: true}, {Model: "alpha", Stated: true}}

	results, cut := tally.table(models)
	if cut {
		t.Error("two models cut")
	}
	won := func(c resultCell) [3]int { return [3]int{c.Wins, c.Draws, c.Losses} }
	if got := won(results[0][1]); got != [3]int{1, 0, 2} {
		t.Errorf("beta's row against alpha = %v, want [1 0 2]", got)
	}
	if got := won(results[1][0]); got != [3]int{2, 0, 1} {
		t.Errorf("alpha's row against beta = %v, want [2 0 1]", got)
	}
	feed := tally.feed(models)
	if len(feed) != 1 {
		t.Fatalf("feed has %d pairs, want 1", len(feed))
	}
	if f := feed[0]; f.A != "beta" || f.B != "alpha" || f.WinsA != 1 || f.WinsB != 2 || f.Games != 3 {
		t.Errorf("feed = %+v, want beta first with 1 win to alpha's 2 of 3", f)
	}
}

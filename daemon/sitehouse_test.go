package daemon

import (
	"strings"
	"testing"
	"time"

	"vesper/site"
	"vesper/site/opening"
)

// TestSiteShowsHouseStrength: the daemon's builds say how strong its
// house plays, from the search time it gives its engine (issue 26), and
// pass the rest of what they show unchanged.
func TestSiteShowsHouseStrength(t *testing.T) {
	n := &Daemon{think: 1500 * time.Millisecond, lim: Limits{DormantAfter: 3600}}
	var in site.Input
	n.siteShow(Options{ListAll: true}, 0).apply(&in)
	if in.HouseStrength != "1.5s of search per move" || in.DormantAfter != 3600 || in.Analysing {
		t.Errorf("site input: strength %q, dormant after %d, analysing %v", in.HouseStrength, in.DormantAfter, in.Analysing)
	}
	if in.Openings != nil {
		t.Error("without --openings the build does not take the shipped table")
	}
	table, err := opening.Parse(strings.NewReader(opening.Header + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	n.siteShow(Options{Openings: table}, 0).apply(&in)
	if in.Openings != table {
		t.Error("the daemon's builds do not take its --openings table")
	}
	if got := houseStrength(2 * time.Second); got != "2s of search per move" {
		t.Errorf("houseStrength(2s) = %q", got)
	}
}

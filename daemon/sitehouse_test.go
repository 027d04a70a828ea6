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

// The daemon's builds list the relays it reads and link the source the
// operator named (issue 37), as do builds from the store alone.
func TestSiteShowsRelaysAndSource(t *testing.T) {
	n := &Daemon{relays: []string{"wss://relay.one.example", "wss://relay.two.example"}}
	var in site.Input
	n.siteShow(Options{SourceURL: "https://git.example/vesper"}, 0).apply(&in)
	if strings.Join(in.ReadRelays, ",") != "wss://relay.one.example,wss://relay.two.example" || in.SourceURL != "https://git.example/vesper" {
		t.Errorf("site input: relays %q, source %q", in.ReadRelays, in.SourceURL)
	}
	sh := siteShow{relays: []string{"wss://r.example"}, source: "https://s.example/"}
	in = site.Input{}
	sh.apply(&in)
	if len(in.ReadRelays) != 1 || in.SourceURL != "https://s.example/" {
		t.Errorf("a build from the store: relays %q, source %q", in.ReadRelays, in.SourceURL)
	}
}

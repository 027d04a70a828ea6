package daemon

import (
	"context"
	"testing"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
	"vesper/site"
)

// finishedChess is a final chess match (scholar's mate, both results
// signed) between a and b, challenged at t.
func finishedChess(t *testing.T, a, b nostr.SecretKey, at int64) *testkit.Match {
	t.Helper()
	m := testkit.NewMatch(a, b, "chess", "", at)
	m.Accept(at + 1)
	last := m.Play(demoGame, at+2, 1)
	s, err := match.Fold(m.ID, m.Events, nil)
	if err != nil || !s.Over {
		t.Fatalf("the mate did not end: %v", err)
	}
	m.Result(a, s.Computed(), last+1)
	m.Result(b, s.Computed(), last+2)
	return m
}

// Issue 30 item 8: the house signs at most --records-per-hour game
// records an hour, only for listed players' matches (junk games between
// unlisted keys get none), and the ones held back come out in a later
// hour; the gauge says how many the last pass held back.
func TestRecordsBudgetAndListing(t *testing.T) {
	house := testkit.Key("house")
	n := testNode(t, house)
	n.met = newMetrics(func() int { return 0 })
	n.lim.RecordsPerHour = 3
	ctx := context.Background()
	alice, bob := testkit.Key("alice"), testkit.Key("bob")
	deliver(t, n, "ws://honest", botProfile(alice, tNow-9000), botProfile(bob, tNow-9000))
	for i := int64(0); i < 5; i++ {
		deliver(t, n, "ws://honest", finishedChess(t, alice, bob, tNow-8000+i*100).Events...)
		deliver(t, n, "ws://junk", finishedChess(t, testkit.Key("junk"+string(rune('a'+i))), testkit.Key("mule"), tNow-8000+i*100).Events...)
	}
	pass := func(want int) {
		t.Helper()
		in, err := siteInput(ctx, n.st, n.self, false, n.clock())
		if err != nil {
			t.Fatal(err)
		}
		exp, err := site.NewExporter(in)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := n.records(ctx, func() (*site.Exporter, error) { return exp, nil }, nil); err != nil || got != want {
			t.Fatalf("recorded %d (%v), want %d", got, err, want)
		}
	}
	pass(3)
	pass(0)
	if got := metric(t, n.met, "vesper_duties_held_back", "what", "records"); got != 2 {
		t.Errorf("records held back: %v, want 2", got)
	}
	n.clock = func() int64 { return tNow + 3601 }
	pass(2)
	pass(0)
	if got := metric(t, n.met, "vesper_duties_held_back", "what", "records"); got != 0 {
		t.Errorf("records held back once done: %v, want 0", got)
	}
	due, err := n.st.FinalWithoutDuty(ctx, nostr.GameChess, recordDuty(""), 100)
	if err != nil || len(due) != 5 {
		t.Errorf("%d final games without a record (%v), want the 5 junk ones", len(due), err)
	}
}

// Issue 30 item 8: at most --rulings-per-hour rulings an hour, whatever
// the per-pass bound; the rest come out in the next hours, each correct.
func TestRulingsBudget(t *testing.T) {
	house := testkit.Key("house")
	n := testNode(t, house)
	n.met = newMetrics(func() int { return 0 })
	n.lim.RulingsPerHour, n.lim.DutiesPerPass = 2, 100
	ctx := context.Background()
	alice, bob := testkit.Key("alice"), testkit.Key("bob")
	var ids []string
	for i := int64(0); i < 5; i++ {
		m := testkit.NewMatch(alice, bob, "gomoku", "", tNow-5*86400+i)
		m.Accept(tNow - 5*86400 + 100)
		m.Move(alice, 1, "h8", tNow-5*86400+200)
		m.Request(alice, tNow-2*86400)
		deliver(t, n, "ws://honest", m.Events...)
		ids = append(ids, m.ID)
	}
	for hour, want := range [][]int{{2, 0}, {2, 0}, {1, 0}} {
		n.clock = func() int64 { return tNow + int64(hour)*3601 }
		for pass, w := range want {
			if got, err := n.decide(ctx); err != nil || got != w {
				t.Fatalf("hour %d pass %d: recorded %d (%v), want %d", hour, pass, got, err, w)
			}
		}
		if hour == 0 {
			if got := metric(t, n.met, "vesper_duties_held_back", "what", "rulings"); got != 3 {
				t.Errorf("rulings held back: %v, want 3", got)
			}
		}
	}
	for _, id := range ids {
		if s, err := n.Load(ctx, id); err != nil || s == nil || !s.Final || s.FinalBy != match.FinalByRuling {
			t.Errorf("match %s: not final by the house's ruling", id[:8])
		}
	}
}

package sim

import (
	"slices"
	"testing"
	"time"

	"vesper/match"
	"vesper/nostr"
)

const testEnd = 1_790_000_000

func ids(s *Season) []string {
	var out []string
	for _, ev := range s.Events() {
		out = append(out, ev.ID)
	}
	return out
}

func TestGenerateIsDeterministic(t *testing.T) {
	cfg := Config{Seed: 3, Agents: 5, Matches: 12, End: testEnd, Live: 30 * time.Second}
	a, err := Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Workers = 1 // the split over workers must not matter
	b, err := Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids(a), ids(b)) {
		t.Fatal("the same config gave different events")
	}
	// In parts, the same matches.
	first, second := cfg, cfg
	first.Matches, second.From, second.Matches = 5, 5, 7
	p1, err := Generate(first)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := Generate(second)
	if err != nil {
		t.Fatal(err)
	}
	parts := &Season{Matches: append(p1.Matches, p2.Matches...)}
	if !slices.Equal(ids(a), ids(parts)) {
		t.Fatal("a season made in two parts differs from the same season made at once")
	}
	cfg.Seed = 4
	c, err := Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(ids(a), ids(c)) {
		t.Fatal("another seed gave the same events")
	}
}

func TestGenerateRefusesBadConfig(t *testing.T) {
	for name, cfg := range map[string]Config{
		"no end":         {Agents: 5},
		"too few agents": {Agents: 2, End: testEnd},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Generate(cfg); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

// TestSeasonMeetsTheRules: a season exercises every part of PROTOCOL.md
// section 2: all statuses, all three ways to be final, and the ignored
// reasons of each rule (counted by the fold itself, which the generator
// consults but never second-guesses).
func TestSeasonMeetsTheRules(t *testing.T) {
	s, err := Generate(Config{Seed: 11, Agents: 12, Matches: 120, End: testEnd, Live: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int64{}
	for _, m := range s.Matches {
		for _, id := range m.Future {
			seen[id] = testEnd // published around End, so stamped days ahead
		}
	}
	statuses, finalBy, tokens := map[match.Status]int{}, map[match.FinalBy]int{}, map[string]int{}
	noMatch := 0
	for _, m := range s.Matches {
		st, err := match.Fold(m.ID, m.Events, seen)
		if err != nil {
			noMatch++
			if m.Plan != "invalid" {
				t.Errorf("match %s (%s): %v", m.ID, m.Plan, err)
			}
			continue
		}
		statuses[st.Status(testEnd)]++
		finalBy[st.FinalBy]++
		for _, ig := range st.Ignored {
			tokens[ig.Token]++
		}
		if t0 := st.CreatedAt; t0 > testEnd {
			t.Errorf("match %s starts after End", m.ID)
		}
	}
	if noMatch == 0 {
		t.Error("no invalid challenge")
	}
	for _, want := range []match.Status{match.StatusOpen, match.StatusExpired, match.StatusActive, match.StatusOver} {
		if statuses[want] == 0 {
			t.Errorf("no match %s: %v", want, statuses)
		}
	}
	for _, want := range []match.FinalBy{match.FinalBySignatures, match.FinalByTimeout, match.FinalByRuling} {
		if finalBy[want] == 0 {
			t.Errorf("no match final by %s: %v", want, finalBy)
		}
	}
	for _, want := range []string{match.IgnIllegal, match.IgnWrongPly, match.IgnWrongPlayer, match.IgnNotPlayer,
		match.IgnLate, match.IgnHeld, match.IgnClaimPremature, match.IgnSigInconsistent, match.IgnRequestInvalid,
		match.IgnRulingIncorrect, match.IgnAcceptNotInv, match.IgnAcceptWindow, match.IgnGameOver, match.IgnFuture,
		match.IgnAlreadyFinal} {
		if tokens[want] == 0 {
			t.Errorf("no event ignored as %s: %v", want, tokens)
		}
	}
}

// TestLiveTailIsCompressed: after End, stamps squeeze into the live window
// and still strictly increase within a match.
func TestLiveTailIsCompressed(t *testing.T) {
	s, err := Generate(Config{Seed: 2, Agents: 6, Matches: 60, End: testEnd, Live: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	after := 0
	for _, m := range s.Matches {
		future := map[string]bool{}
		for _, id := range m.Future {
			future[id] = true
		}
		var last nostr.Timestamp
		for i, ev := range m.Events {
			if future[ev.ID] {
				if ev.CreatedAt < testEnd+3*86400 {
					t.Errorf("future-dated event %s is stamped %d", ev.ID, ev.CreatedAt)
				}
				continue
			}
			if i > 0 && ev.CreatedAt <= last {
				t.Errorf("match %s: event %d stamped %d after %d", m.ID, i, ev.CreatedAt, last)
			}
			last = ev.CreatedAt
			if ev.CreatedAt > testEnd {
				after++
			}
		}
	}
	if after == 0 {
		t.Fatal("no event after End: the live tail is empty")
	}
}

func TestClockStamp(t *testing.T) {
	c := newClock(0, 1000, 60)
	for _, tc := range []struct{ raw, want int64 }{
		{999, 999},
		{1000, 1000},
		{1001, 1001},                 // never End itself
		{1000 + liveHorizon, 1030},   // half the window
		{1000 + 3*liveHorizon, 1045}, // three quarters
		{1000 + 1000*liveHorizon, 1060},
	} {
		if got := c.stamp(tc.raw); got != tc.want {
			t.Errorf("stamp(%d) = %d, want %d", tc.raw, got, tc.want)
		}
	}
	c = newClock(990, 1000, 60)
	prev := int64(0)
	for range 100 {
		got := c.advance(5)
		if got <= prev {
			t.Fatalf("advance gave %d after %d", got, prev)
		}
		prev = got
	}
}

func TestPlan(t *testing.T) {
	s, err := Generate(Config{Seed: 5, Agents: 6, Matches: 40, End: testEnd, Live: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	future := map[string]bool{}
	for _, m := range s.Matches {
		for _, id := range m.Future {
			future[id] = true
		}
	}
	plan := Plan(s, 4, 9)
	if len(plan) != s.Count() {
		t.Fatalf("%d deliveries for %d events", len(plan), s.Count())
	}
	once := map[string]bool{}
	var prevAt int64
	for _, d := range plan {
		if once[d.Event.ID] {
			t.Fatalf("event %s planned twice", d.Event.ID)
		}
		once[d.Event.ID] = true
		if len(d.Relays) == 0 || len(d.Relays) > 4 {
			t.Errorf("event %s to %d relays", d.Event.ID, len(d.Relays))
		}
		if d.At < prevAt {
			t.Errorf("deliveries out of order")
		}
		prevAt = d.At
		created := int64(d.Event.CreatedAt)
		history := created <= testEnd || future[d.Event.ID]
		switch {
		case history && d.At != 0:
			t.Errorf("history event %s scheduled at %d", d.Event.ID, d.At)
		case !history && d.At == 0:
			t.Errorf("live event %s in the history", d.Event.ID)
		case !history && created-d.At > earlyMax:
			t.Errorf("live event %s published %d s before its created_at", d.Event.ID, created-d.At)
		}
	}
}

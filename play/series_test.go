package play

import (
	"fmt"
	"testing"
)

// TestSeriesSlots: sides swap each game (the runner invites for its first
// games, waits for the others), the file keeps the slots across a restart,
// a slot marked posting with no match is re-posted only when no orphan
// challenge turned up, and NoSwap keeps one side.
func TestSeriesSlots(t *testing.T) {
	dir := t.TempDir()
	cfg := SeriesConfig{Opponent: "opp", Games: 6, Game: "chess", FirstWhite: true}
	s, err := loadSeries(dir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(s.toPost()); got != "[0 2 4]" {
		t.Fatalf("to post %s, want [0 2 4]", got)
	}
	if i, ok := s.nextSecond(); !ok || i != 1 {
		t.Fatalf("next second %d %v, want 1", i, ok)
	}
	_ = s.journal(seriesEntry{Type: "posting", Index: 0})
	_ = s.assign(0, "m0")
	_ = s.journal(seriesEntry{Type: "posting", Index: 2}) // the crash comes before the slot entry
	_ = s.assign(1, "m1")
	s.result("m0", OutcomeWin)

	s2, err := loadSeries(dir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !s2.has("m0") || !s2.has("m1") || fmt.Sprint(s2.toPost()) != "[4]" {
		t.Fatalf("after a restart: has m0 %v, m1 %v, to post %v; want [4] (2 may be on the relays)", s2.has("m0"), s2.has("m1"), s2.toPost())
	}
	if i, ok := s2.orphan("mx"); !ok || i != 2 {
		t.Fatalf("orphan slot %d %v, want 2", i, ok)
	}
	if _, ok := s2.orphan("m0"); ok {
		t.Fatal("a match already in the series is no orphan")
	}
	s2.unmarkOrphans()
	if fmt.Sprint(s2.toPost()) != "[2 4]" {
		t.Fatalf("no orphan found: to post %v, want [2 4]", s2.toPost())
	}
	// Outcomes are read back from the games' journals.
	j, _ := OpenJournal(dir+"/games", "m1")
	_ = j.Append(Entry{Type: EntryFinal, Outcome: OutcomeDraw})
	s3, _ := loadSeries(dir, cfg)
	if sc := s3.score(); sc.Draws != 1 || sc.Games() != 1 {
		t.Fatalf("score %+v, want the draw of m1 (m0's win was never journaled)", sc)
	}
	// A challenge that expired unaccepted frees its slot, in the file too.
	s3.expired("m1")
	if !s3.has("m1") {
		t.Fatal("m1 has an outcome: it keeps its slot")
	}
	_ = s3.assign(4, "m4")
	s3.expired("m4")
	if s4, _ := loadSeries(dir, cfg); s4.has("m4") || fmt.Sprint(s4.toPost()) != "[4]" {
		t.Fatalf("after expiry: has m4 %v, to post %v; want [4]", s4.has("m4"), s4.toPost())
	}
	ns, _ := loadSeries(t.TempDir(), SeriesConfig{Opponent: "opp", Games: 3, FirstWhite: true, NoSwap: true})
	if fmt.Sprint(ns.toPost()) != "[0 1 2]" {
		t.Fatalf("no swap: to post %v", ns.toPost())
	}
	if _, ok := ns.nextSecond(); ok {
		t.Fatal("no swap as first: no game waits for the opponent's invitation")
	}
}

// TestSeriesFilePerSeries: a series is its opponent, game, length and
// sides (issue 35): a gomoku series after a chess series against the same
// opponent has its own file and none of the chess games.
func TestSeriesFilePerSeries(t *testing.T) {
	dir := t.TempDir()
	chess := SeriesConfig{Opponent: "opp", Games: 2, Game: "chess", FirstWhite: true}
	s, err := loadSeries(dir, chess)
	if err != nil {
		t.Fatal(err)
	}
	_ = s.assign(0, "m0")
	_ = s.assign(1, "m1")
	for _, other := range []SeriesConfig{
		{Opponent: "opp", Games: 2, Game: "gomoku", FirstWhite: true},
		{Opponent: "other", Games: 2, Game: "chess", FirstWhite: true},
		{Opponent: "opp", Games: 4, Game: "chess", FirstWhite: true},
		{Opponent: "opp", Games: 2, Game: "chess"},
		{Opponent: "opp", Games: 2, Game: "chess", FirstWhite: true, NoSwap: true},
	} {
		if SeriesFile(other) == SeriesFile(chess) {
			t.Fatalf("%+v shares the file of %+v", other, chess)
		}
		g, err := loadSeries(dir, other)
		if err != nil {
			t.Fatal(err)
		}
		if g.has("m0") || g.has("m1") || len(g.unfinished()) != 0 {
			t.Fatalf("%+v sees the chess series' games", other)
		}
	}
	if _, err := loadSeries(dir, SeriesConfig{Opponent: "../x", Games: 1, Game: "chess"}); err == nil {
		t.Fatal("an opponent naming a path was taken")
	}
}

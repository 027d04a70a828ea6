package main

import (
	"fmt"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/internal/testkit/playtest"
	"vesper/match"
	"vesper/nostr"
	"vesper/relayd"
)

// fetchFold reads a match from a relay and folds it.
var fetchFold = playtest.Fold

func post(t *testing.T, url string, k nostr.SecretKey, ev *nostr.Event) {
	t.Helper()
	playtest.Publish(t, url, testkit.Sign(k, ev))
}

// weakGomoku plays the first empty point of the a-file upward: a scripted
// opponent that never blocks.
func weakGomoku(st *match.State) string {
	b := st.Board()
	for _, col := range "abcdefghijklmno" {
		for row := 1; row <= 15; row++ {
			p := fmt.Sprintf("%c%d", col, row)
			if _, err := b.Clone().Play(p); err == nil {
				return p
			}
		}
	}
	return ""
}

// TestHousePlaysOpenChallenge: an open challenge stamped 31 minutes ago is
// accepted by the daemon and played to the end against a scripted
// opponent; both sign and the result is final. With --max-games 1 a second
// challenge waits until that game ends, then is accepted.
func TestHousePlaysOpenChallenge(t *testing.T) {
	testkit.QuickLoopSkips(t)
	rs := startRelays(t, 1, relayd.Options{})
	url := rs[0].URL()
	house, opp, other := testkit.Key("house"), testkit.Key("opponent"), testkit.Key("other")
	now := time.Now().Unix()
	ch := testkit.Sign(opp, nostr.NewChallenge("gomoku", "", now-31*60))
	post(t, url, opp, ch)
	waiting := testkit.Sign(other, nostr.NewChallenge("gomoku", "", now-31*60+1))
	post(t, url, other, waiting)

	data := t.TempDir()
	d := startDaemon(t, data, url, "--key", writeKey(t, house), "--think", "50ms", "--max-games", "1")
	waitFor(t, "the daemon's accept", 30*time.Second, func() bool { return fetchFold(t, url, ch.ID).Accepted })
	if st := fetchFold(t, url, waiting.ID); st.Accepted {
		t.Fatal("a second game was accepted beyond --max-games 1")
	}
	// The opponent moves first (it challenged); it plays weak moves until the
	// house makes five in a row.
	var st *match.State
	waitFor(t, "the end of the game", 90*time.Second, func() bool {
		st = fetchFold(t, url, ch.ID)
		if st.Over {
			return true
		}
		if st.ToMove() == match.First {
			post(t, url, opp, nostr.NewMove(ch.ID, st.Plies()+1, weakGomoku(st), st.Stamp(time.Now().Unix())))
		}
		return false
	})
	if st.Result != match.Second || st.Reason != match.ReasonFiveInARow {
		t.Fatalf("the house should win with five in a row: %+v", st.Summary(now))
	}
	post(t, url, opp, nostr.NewResult(ch.ID, st.Computed(), st.Stamp(time.Now().Unix())))
	waitFor(t, "a final result", 30*time.Second, func() bool { return fetchFold(t, url, ch.ID).Final })
	if st := fetchFold(t, url, ch.ID); st.FinalBy != match.FinalBySignatures {
		t.Fatalf("final by %s", st.FinalBy)
	}
	waitFor(t, "the waiting challenge accepted", 30*time.Second, func() bool { return fetchFold(t, url, waiting.ID).Accepted })
	d.stop(t)
}

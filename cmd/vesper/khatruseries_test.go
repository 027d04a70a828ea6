package main

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/internal/testrelay"
	"vesper/nostr"
)

// khatruSeriesGames is the size of TestPlaySeriesOnStockKhatru: 16, issue
// 34's "Done when" (some 590 events in each key's week, past the store's
// 500), or VESPER_KHATRU_SERIES games.
func khatruSeriesGames(t *testing.T) int {
	s := os.Getenv("VESPER_KHATRU_SERIES")
	if s == "" {
		return 16
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("VESPER_KHATRU_SERIES=%q: want a number of games", s)
	}
	return n
}

// TestPlaySeriesOnStockKhatru is issue 34's series: two runners with the
// built-in engine play gomoku games all at once on a stock khatru v0.19.1
// relay (slicestore, which answers every query with its newest 500 events
// at most), and finish the series; then `vesper events` of each key
// reports none of those games as live. The key's week is some 590
// events, past the store's 500: without the seat's paged history reads
// (seat/events.go) the live subscription brings only the newest 500, and
// `vesper events` reported 21 finished games of the two keys as my_turn
// or their_turn (issue 34 saw the runners spin on such games too).
func TestPlaySeriesOnStockKhatru(t *testing.T) {
	if testing.Short() {
		t.Skip("two runners play 16 gomoku games, some 40 s")
	}
	if testkit.RaceDetector {
		// The race step runs -short, which skips this above. Without
		// -short the detector would watch only what runs in process: the
		// stock khatru, which races with itself on live publications
		// (listener.go:139 against :54, see TestIssue30Scenario) and so
		// would fail the test whatever vesper did, and this file's few
		// lines; the runners are separate, uninstrumented binaries.
		t.Skip("khatru v0.19.1's own listener race; the runners are checked as separate binaries")
	}
	games := khatruSeriesGames(t)
	url := testrelay.Khatru(t, testrelay.KhatruOptions{}).URL
	a, b := testkit.Key("khatru series a"), testkit.Key("khatru series b")
	base := t.TempDir()
	dirA := filepath.Join(base, "a")
	keyA, keyB := writeKey(t, a), writeKey(t, b)
	n := strconv.Itoa(games)
	common := []string{"--engine", "builtin", "--nodes", "200", "--series-games", n, "--series-game", nostr.GameGomoku, "--max-games", n}
	ra := startRunner(t, dirA, url, keyA, append(common, "--series-opponent", b.PublicKey())...)
	rb := startRunner(t, filepath.Join(base, "b"), url, keyB, append(common, "--series-opponent", a.PublicKey(), "--series-first", "black")...)
	ra.wait(t, 5*time.Minute)
	rb.wait(t, 5*time.Minute)
	ids := seriesMatches(t, dirA)
	if len(ids) != games {
		t.Fatalf("series of %d games, want %d", len(ids), games)
	}
	plies := 0
	for i, id := range ids {
		st := fetchFold(t, url, id)
		if !st.Final {
			t.Errorf("game %d (%s) is not final on the relay", i+1, id)
		}
		plies += st.Plies()
	}
	t.Logf("%d games, %d plies", games, plies)
	if sc := lastSeries(t, ra.lines(t)).Score; sc.Games() != games {
		t.Fatalf("score over %d games, want %d", sc.Games(), games)
	}
	for _, k := range []nostr.SecretKey{a, b} {
		eventsSeesAllFinal(t, url, k, ids)
	}
}

// eventsSeesAllFinal runs `vesper events --json` for the key and fails on
// any line about one of ids (a finished game is silent at start; a game
// read as live would come as my_turn, their_turn, game_over...). It stops
// at the line for a challenge posted to the key once the stream runs: the
// stream folds nothing while a history read is under way, so by that line
// every match of the key's history has been folded and judged.
func eventsSeesAllFinal(t *testing.T, url string, me nostr.SecretKey, ids []string) {
	t.Helper()
	lines := jsonLines(t, "events", "--json", "--relays", url, "--key", writeKey(t, me), "--timeout", testkit.ScaleFlag(10*time.Second))
	series := map[string]bool{}
	for _, id := range ids {
		series[id] = true
	}
	other := testkit.Key("khatru series sentinel")
	sentinel := testkit.Sign(other, nostr.NewChallenge(nostr.GameGomoku, me.PublicKey(), time.Now().Unix()))
	post(t, url, other, sentinel)
	timeout := time.After(testkit.Scale(2 * time.Minute))
	for {
		select {
		case m, ok := <-lines:
			if !ok {
				t.Fatal("vesper events ended before the sentinel challenge")
			}
			id, _ := m["match"].(string)
			if series[id] {
				t.Errorf("vesper events reports finished game %s as %v", id, m["type"])
			}
			if id == sentinel.ID {
				return
			}
		case <-timeout:
			t.Fatal("no line for the sentinel challenge")
		}
	}
}

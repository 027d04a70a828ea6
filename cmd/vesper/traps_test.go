package main

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

// TestTwoProcessesOneMove is trap 3 of issue 25 across processes: two
// `vesper move` of one key at once, each a different move. The key's lock
// on the match (an flock beside the key file) makes the second read the
// match after the first has posted: one move answers ok, the other is
// refused wrong_player, and only one is posted.
func TestTwoProcessesOneMove(t *testing.T) {
	t.Parallel()
	e := newAgentEnv(t)
	relays := e.relay.URL()
	id := seatRun(t, relays, "challenge", "--key", e.aKey)["match"].(string)
	// The accept is stamped in the current second, so each move waits for
	// the next one before it posts: without the lock both would have read
	// the match before either posted.
	seatRun(t, relays, "accept", "--key", e.bKey, id)
	n := e.relay.Count()
	moves := []string{"e4", "d4"}
	res := make([]result, len(moves))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, mv := range moves {
		wg.Go(func() {
			<-start
			res[i] = vesper(t, nil, nil, "move", "--json", "--relays", relays, "--key", e.aKey, id, mv)
		})
	}
	close(start)
	wg.Wait()
	ok, refused := 0, 0
	for _, r := range res {
		var out map[string]any
		_ = json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &out)
		switch {
		case r.code == 0:
			ok++
		case r.code == exitRules && out["rule"] == "wrong_player":
			refused++
		default:
			t.Errorf("exit %d: %s %s", r.code, r.stdout, r.stderr)
		}
	}
	if ok != 1 || refused != 1 {
		t.Fatalf("%d answered ok and %d were refused, want one each", ok, refused)
	}
	if got := e.relay.Count() - n; got != 1 {
		t.Fatalf("%d events posted, want the one move", got)
	}
}

package main

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"vesper/internal/testkit"
)

// seatRun runs one agent command with --json and returns its object.
func seatRun(t *testing.T, relays string, args ...string) map[string]any {
	t.Helper()
	full := append([]string{args[0], "--json", "--relays", relays}, args[1:]...)
	r := vesper(t, nil, nil, full...)
	var out map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &out); err != nil {
		t.Errorf("vesper %v: stdout %q is not one JSON object (stderr %s)", args, r.stdout, r.stderr)
		return nil
	}
	if r.code != 0 {
		t.Errorf("vesper %v: exit %d: %v", args, r.code, out)
		return nil
	}
	return out
}

// agent is a player that knows no chess: it waits, reads status --json,
// and plays the first of its preferred moves that legal_moves offers
// (accepting any offer it is shown), until the result is final.
func agent(t *testing.T, relays, key, id string, prefer []string, offers *int) map[string]any {
	for range 60 {
		w := seatRun(t, relays, "wait", "--key", key, "--timeout", testkit.ScaleFlag(time.Minute), "--relay-timeout", testkit.ScaleFlag(10*time.Second), id)
		if w == nil {
			return nil
		}
		switch w["reason"] {
		case "final":
			return w["status"].(map[string]any)
		case "game_over":
			seatRun(t, relays, "result", "--key", key, "--timeout", testkit.ScaleFlag(10*time.Second), id)
		case "offer":
			st := w["status"].(map[string]any)
			res := st["offer"].(map[string]any)["result"].(map[string]any)["result"].(string)
			*offers++
			seatRun(t, relays, "result", "--key", key, "--timeout", testkit.ScaleFlag(10*time.Second), "--agree", res, id)
		case "my_turn":
			st := seatRun(t, relays, "status", "--key", key, "--timeout", testkit.ScaleFlag(10*time.Second), id)
			if st == nil {
				return nil
			}
			move := ""
			for _, want := range prefer {
				for _, m := range st["legal_moves"].([]any) {
					m := m.(map[string]any)
					if m["uci"] == want || m["point"] == want {
						move = want
						if san, ok := m["san"].(string); ok {
							move = san // SAN goes in, canonical UCI comes out
						}
					}
				}
				if move != "" {
					break
				}
			}
			if move == "" {
				t.Errorf("none of %v is legal at ply %v", prefer, st["ply"])
				return nil
			}
			rep := seatRun(t, relays, "move", "--key", key, "--timeout", testkit.ScaleFlag(10*time.Second), id, move)
			if rep == nil {
				return nil
			}
		default:
			t.Errorf("wait woke for %v", w["reason"])
			return nil
		}
	}
	t.Error("no final result after 60 turns")
	return nil
}

// playout runs both agents at once and returns what each saw at the end.
func playout(t *testing.T, relays, aKey, bKey, id string, aMoves, bMoves []string) (a, b map[string]any, offers int) {
	var wg sync.WaitGroup
	var offA, offB int
	wg.Go(func() { a = agent(t, relays, aKey, id, aMoves, &offA) })
	wg.Go(func() { b = agent(t, relays, bKey, id, bMoves, &offB) })
	wg.Wait()
	return a, b, offA + offB
}

// TestSeatEndToEndChess: two agent processes play the fool's mate using
// only wait, status --json and move, beside a dead relay and a black hole,
// then both sign.
func TestSeatEndToEndChess(t *testing.T) {
	testkit.QuickLoopSkips(t)
	t.Parallel()
	e := newAgentEnv(t)
	relays := strings.Join([]string{testkit.DeadRelay(t), testkit.BlackHole(t), e.relay.URL()}, ",")
	id := seatRun(t, relays, "challenge", "--key", e.aKey, "--timeout", testkit.ScaleFlag(10*time.Second))["match"].(string)
	seatRun(t, relays, "accept", "--key", e.bKey, "--timeout", testkit.ScaleFlag(10*time.Second), id)
	a, b, _ := playout(t, relays, e.aKey, e.bKey, id, []string{"f2f3", "g2g4"}, []string{"e7e5", "d8h4"})
	for _, st := range []map[string]any{a, b} {
		if st == nil {
			t.Fatal("an agent gave up")
		}
		if st["reason"] != "checkmate" || st["result"] != "second" || st["final_by"] != "signatures" {
			t.Fatalf("final status %v", st)
		}
		if got, _ := json.Marshal(st["san_moves"]); string(got) != `["f3","e5","g4","Qh4#"]` {
			t.Fatalf("san_moves %s", got)
		}
		if failed := st["relays"].(map[string]any)["failed"].(map[string]any); len(failed) != 2 {
			t.Fatalf("want the two bad relays listed as failed: %v", failed)
		}
	}
}

// TestSeatEndToEndGomokuWithOffer: a gomoku game to five the same way, and
// a second game where the first player's draw offer wakes the other, who
// accepts it.
func TestSeatEndToEndGomokuWithOffer(t *testing.T) {
	testkit.QuickLoopSkips(t)
	t.Parallel()
	e := newAgentEnv(t)
	relays := e.relay.URL()
	id := seatRun(t, relays, "challenge", "--key", e.aKey, "--game", "gomoku")["match"].(string)
	seatRun(t, relays, "accept", "--key", e.bKey, id)
	a, _, _ := playout(t, relays, e.aKey, e.bKey, id, []string{"h8", "i8", "j8", "k8", "l8"}, []string{"a1", "a2", "a3", "a4"})
	if a == nil || a["reason"] != "five_in_a_row" || a["result"] != "first" || a["final"] != true {
		t.Fatalf("gomoku: %v", a)
	}

	id = seatRun(t, relays, "challenge", "--key", e.aKey, "--game", "gomoku")["match"].(string)
	seatRun(t, relays, "accept", "--key", e.bKey, id)
	seatRun(t, relays, "move", "--key", e.aKey, id, "h8")
	seatRun(t, relays, "move", "--key", e.bKey, id, "a1")
	seatRun(t, relays, "result", "--key", e.aKey, "--agree", "draw", id)
	// It is Alice's turn, so only the offer (posted before Bob waits) can
	// wake him.
	var offers int
	b := agent(t, relays, e.bKey, id, nil, &offers)
	if offers != 1 || b == nil || b["result"] != "draw" || b["reason"] != "agreement" || b["final"] != true {
		t.Fatalf("offer: %d offers seen, final %v", offers, b)
	}
}

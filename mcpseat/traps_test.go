package mcpseat_test

import (
	"testing"

	"vesper/seat"
)

// TestWaitTurnWakesOncePerOffer is trap 2 of issue 25: an offer left
// unanswered wakes one wait_turn, not every call for the rest of the game;
// a second server of the same key (no memory of it) is kept quiet by seen;
// and once the position has moved on the offer is gone from the status.
func TestWaitTurnWakesOncePerOffer(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	a := startAgent(t, r.URL(), "once-a")
	b := startAgent(t, r.URL(), "once-b")
	ch := ok[seat.Reply](a, "challenge", map[string]any{"game": "gomoku", "invite": b.pk})
	m := map[string]any{"match": ch.Match}
	ok[seat.Reply](b, "accept", m)
	ok[seat.Reply](a, "play", map[string]any{"match": ch.Match, "move": "h8"})
	ok[seat.Reply](b, "play", map[string]any{"match": ch.Match, "move": "a1"})
	// On its own turn, a offers itself the win.
	offer := ok[seat.Reply](a, "offer_result", map[string]any{"match": ch.Match, "result": "first"})
	wait := func(p *agent, args map[string]any) seat.Woke {
		t.Helper()
		args["match"] = ch.Match
		return ok[seat.Woke](p, "wait_turn", args)
	}
	if w := wait(b, map[string]any{"timeout_seconds": 60}); w.Reason != seat.WakeOffer || w.Status.Offer == nil || w.Status.Offer.Event != offer.Event {
		t.Fatalf("first wait: %+v", w)
	}
	if w := wait(b, map[string]any{"timeout_seconds": 1}); w.Reason != seat.WakeTimeout {
		t.Fatalf("second wait woke for %s: the offer already woke one", w.Reason)
	}
	b2 := startAgent(t, r.URL(), "once-b")
	if w := wait(b2, map[string]any{"timeout_seconds": 1, "seen": []string{offer.Event}}); w.Reason != seat.WakeTimeout {
		t.Fatalf("wait with the offer in seen woke for %s", w.Reason)
	}
	if w := wait(b2, map[string]any{"timeout_seconds": 60}); w.Reason != seat.WakeOffer {
		t.Fatalf("a new server's first wait: %s, want the offer", w.Reason)
	}
	ok[seat.Reply](a, "play", map[string]any{"match": ch.Match, "move": "h9"})
	if w := wait(b2, map[string]any{"timeout_seconds": 60}); w.Reason != seat.WakeMyTurn || w.Status.Offer != nil {
		t.Fatalf("after a's move: woke %s with offer %+v, want my_turn and no offer", w.Reason, w.Status.Offer)
	}
}

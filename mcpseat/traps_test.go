package mcpseat_test

import (
	"strings"
	"testing"

	"vesper/seat"
)

// TestWaitTurnWakesOncePerOffer is trap 2 of issue 25: an offer left
// unanswered wakes one wait_turn, not every call for the rest of the game;
// seen keeps a wait from waking for the offers it lists (a second server
// of the same key has no memory of the first's); and once the position
// has moved on, the offer is gone from the status.
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
	offer := func(result string) string {
		return ok[seat.Reply](a, "offer_result", map[string]any{"match": ch.Match, "result": result}).Event
	}
	// On its own turn, a offers itself the win.
	win := offer("first")
	if w := ok[seat.Woke](b, "wait_turn", map[string]any{"match": ch.Match, "timeout_seconds": 60}); w.Reason != seat.WakeOffer || w.Status.Offer == nil || w.Status.Offer.Event != win {
		t.Fatalf("first wait: %+v", w)
	}
	// replaced runs a wait_turn of p until it has read the match (and would
	// have woken for an offer it had not seen then), then has a post a new
	// offer, and returns the offer the wait woke for.
	replaced := func(p *agent, args map[string]any, token, result string) (woke, posted string) {
		t.Helper()
		args["match"], args["timeout_seconds"] = ch.Match, 60
		read := func() int { return p.countMessages("relay(s) live") - p.countMessages(" 0 event(s)") }
		before := read()
		done := make(chan seat.Woke, 1)
		go func() {
			res, err := p.try("wait_turn", args, token)
			if err != nil || res.IsError {
				t.Errorf("wait_turn: %v %v", err, res)
			}
			done <- decodeAny[seat.Woke](res)
		}()
		waitFor(t, "the wait to read the match", func() bool { return read() > before || len(done) > 0 })
		posted = offer(result)
		w := <-done
		if w.Reason != seat.WakeOffer || w.Status == nil || w.Status.Offer == nil {
			t.Fatalf("wait woke for %s, want an offer", w.Reason)
		}
		return w.Status.Offer.Event, posted
	}
	if got, draw := replaced(b, map[string]any{}, "b-again", "draw"); got != draw {
		t.Fatalf("the second wait woke for %s, not the new offer %s: the first offer (%s) already woke one", got, draw, win)
	}
	b2 := startAgent(t, r.URL(), "once-b")
	last := ok[seat.Status](b2, "game_state", m).Offer.Event
	if got, again := replaced(b2, map[string]any{"seen": []string{last}}, "b2-seen", "first"); got != again || strings.EqualFold(got, last) {
		t.Fatalf("a wait with %s in seen woke for %s, want the new offer %s", last, got, again)
	}
	ok[seat.Reply](a, "play", map[string]any{"match": ch.Match, "move": "h9"})
	if w := ok[seat.Woke](b2, "wait_turn", map[string]any{"match": ch.Match, "timeout_seconds": 60}); w.Reason != seat.WakeMyTurn || w.Status.Offer != nil {
		t.Fatalf("after a's move: woke %s with offer %+v, want my_turn and no offer", w.Reason, w.Status.Offer)
	}
}

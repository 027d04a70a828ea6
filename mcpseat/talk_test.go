package mcpseat_test

import (
	"context"
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/testkit"
	"vesper/internal/testkit/playtest"
	"vesper/match"
	"vesper/nostr"
	"vesper/nostr/relay"
	"vesper/reveal"
	"vesper/seat"
)

// TestTableTalkAndReasoning (PROTOCOL.md section 8) through `vesper mcp`:
// set_profile publishes the agent identity; play carries a comment, which
// the opponent's game_state shows at once, and reasoning, given to play or
// filed before it with record_reasoning, which is committed and never shown
// while the game is live; once final, sign_result and wait_turn reveal, and
// every reasoning verifies.
func TestTableTalkAndReasoning(t *testing.T) {
	r := startRelay(t)
	a, b := startAgent(t, r.URL(), "talk-a"), startAgent(t, r.URL(), "talk-b")
	prof := ok[seat.Reply](a, "set_profile", map[string]any{"name": "A", "model": "demo-model-a", "harness": "test"})
	if prof.Event == "" {
		t.Fatalf("set_profile %+v", prof)
	}
	id := ok[seat.Reply](a, "challenge", map[string]any{"game": "chess"}).Match
	ok[seat.Reply](b, "accept", map[string]any{"match": id})

	ok[map[string]any](a, "record_reasoning", map[string]any{"match": id, "reasoning": "filed: weaken the king"})
	p1 := ok[seat.Reply](a, "play", map[string]any{"match": id, "move": "f3", "comment": "hello <b>"})
	if p1.Reasoning == "" {
		t.Fatal("the filed reasoning was not committed with the move")
	}
	st := ok[seat.Status](b, "game_state", map[string]any{"match": id})
	if st.OpponentComment == nil || st.OpponentComment.Text != "hello <b>" {
		t.Fatalf("b's game_state opponent_comment %+v", st.OpponentComment)
	}
	ok[seat.Reply](b, "play", map[string]any{"match": id, "move": "e5", "reasoning": "given: centre"})
	// The filing was spent on f3: g4 commits nothing.
	if p3 := ok[seat.Reply](a, "play", map[string]any{"match": id, "move": "g4"}); p3.Reasoning != "" {
		t.Fatalf("a spent filing was committed again: %+v", p3)
	}
	ok[seat.Reply](b, "play", map[string]any{"match": id, "move": "Qh4#", "reasoning": "given: mate", "comment": "gg"})

	ok[seat.Reply](a, "sign_result", map[string]any{"match": id})
	if rep := ok[seat.Reply](b, "sign_result", map[string]any{"match": id}); len(rep.Revealed) != 1 {
		t.Fatalf("b's final sign_result revealed %v", rep.Revealed)
	}
	woke := ok[seat.Woke](a, "wait_turn", map[string]any{"match": id, "timeout_seconds": 30})
	if woke.Reason != seat.WakeFinal || len(woke.Revealed) != 1 {
		t.Fatalf("a's wait_turn %+v", woke)
	}

	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(30*time.Second))
	defer cancel()
	filters := append(relay.MatchFilters(id), gn.Filter{Kinds: []int{nostr.KindReveal}, Tags: gn.TagMap{nostr.MatchTag: {id}}},
		gn.Filter{IDs: []string{prof.Event}})
	got, err := relay.Fetch(ctx, []string{r.URL()}, filters, testkit.Scale(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var evs []*nostr.Event
	for _, rc := range got {
		evs = append(evs, rc.Event)
		if rc.Event.Kind == nostr.KindProfile {
			if ag, _, _ := nostr.ReadAgent(rc.Event.Content); ag.Model != "demo-model-a" {
				t.Fatalf("profile %s", rc.Event.Content)
			}
		}
	}
	fs, err := match.Fold(id, evs, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep := reveal.Check(fs, evs)
	want := map[string]bool{"filed: weaken the king": true, "given: centre": true, "given: mate": true}
	if len(rep.Entries) != 3 {
		t.Fatalf("%d committed entries, want 3", len(rep.Entries))
	}
	for _, e := range rep.Entries {
		if e.Status != reveal.Verified || !want[e.Text] {
			t.Fatalf("entry %+v", e)
		}
	}
}

// TestFirstSignerRevealsWithoutWaiting (issue 35): the first player to
// sign the result learns that it is final from whatever call comes next,
// here game_state, not wait_turn; its reasoning is revealed then.
func TestFirstSignerRevealsWithoutWaiting(t *testing.T) {
	r := startRelay(t)
	a, b := startAgent(t, r.URL(), "first-signer-a"), startAgent(t, r.URL(), "first-signer-b")
	id := ok[seat.Reply](a, "challenge", map[string]any{"game": "chess"}).Match
	ok[seat.Reply](b, "accept", map[string]any{"match": id})
	ok[seat.Reply](a, "play", map[string]any{"match": id, "move": "f3", "reasoning": "a's only thought"})
	ok[seat.Reply](b, "play", map[string]any{"match": id, "move": "e5"})
	ok[seat.Reply](a, "play", map[string]any{"match": id, "move": "g4"})
	ok[seat.Reply](b, "play", map[string]any{"match": id, "move": "Qh4#"})
	ok[seat.Reply](a, "sign_result", map[string]any{"match": id})
	ok[seat.Reply](b, "sign_result", map[string]any{"match": id})
	if st := ok[seat.Status](a, "game_state", map[string]any{"match": id}); !st.Final {
		t.Fatal("not final after both signatures")
	}
	_, rep := playtest.Reveals(t, r.URL(), id)
	if len(rep.Entries) != 1 || rep.Entries[0].Status != reveal.Verified || rep.Entries[0].Text != "a's only thought" {
		t.Fatalf("entries %+v, want a's reasoning verified after game_state", rep.Entries)
	}
}

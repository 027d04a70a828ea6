package daemon

import (
	"context"
	"slices"
	"strings"
	"testing"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
	"vesper/nostr/relay"
)

// Issue 39 item 4: the ingest edge (screen) classifies each event once:
// every item it keeps carries its matches, a challenge its own id, a stub
// the matches of the event it stands for, and an event naming no match is
// not kept. The quotas, the store and the fold read that value.
func TestScreenClassifiesOnce(t *testing.T) {
	n := testNode(t, nostr.SecretKey{})
	a, b := testkit.Key("alice"), testkit.Key("bob")
	m := testkit.NewMatch(a, b, nostr.GameChess, "", tNow-100)
	acc := m.Accept(tNow - 90)
	other := strings.Repeat("c", 64)
	two := testkit.Sign(a, &nostr.Event{Kind: nostr.KindMove, CreatedAt: nostr.Timestamp(tNow - 80),
		Tags: nostr.Tags{{"g", m.ID}, {"g", other}, {"ply", "1"}}, Content: "e2e4"})
	none := testkit.Sign(a, &nostr.Event{Kind: nostr.KindMove, CreatedAt: nostr.Timestamp(tNow - 70),
		Tags: nostr.Tags{{"g", "not a match"}, {"ply", "1"}}, Content: "e2e4"})
	var batch []relay.Received
	for _, ev := range []*nostr.Event{m.Events[0], acc, two, none} {
		batch = append(batch, relay.Received{Event: ev, Relay: "ws://a"})
	}
	items := n.screen(context.Background(), batch, tNow)
	if len(items) != 3 {
		t.Fatalf("%d items kept, want 3 (the event naming no match dropped)", len(items))
	}
	want := [][]string{{m.ID}, {m.ID}, {m.ID, other}}
	for i, it := range items {
		if !slices.Equal(it.Matches, want[i]) {
			t.Errorf("item %d (kind %d): matches %v, want %v", i, it.Event.Kind, it.Matches, want[i])
		}
	}
	if !match.IsStub(items[2].Event) {
		t.Error("the move with two g tags is not stubbed")
	}
}

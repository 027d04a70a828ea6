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

// Issue 39 item 4: after the edge, every step reads the item's facts and
// derives none again. The move below names match y in its g tag; its
// item is made to say z instead, which no step could find in the event:
// the quotas, the store (PutEvents checks nothing of a classified item),
// the stash, the reveals and the challengers' ids all go by the item. A
// step that derived the matches from the event again would see y.
func TestStepsReadTheItemsFacts(t *testing.T) {
	ctx := context.Background()
	n := testNode(t, nostr.SecretKey{})
	y, z := strings.Repeat("a", 64), strings.Repeat("b", 64)
	mv := testkit.Sign(testkit.Key("bob"), &nostr.Event{Kind: nostr.KindMove, CreatedAt: nostr.Timestamp(tNow - 10),
		Tags: nostr.Tags{{"g", y}, {"ply", "1"}}, Content: "e2e4"})
	it, why := classify(mv, "ws://a", tNow)
	if why != "" || !slices.Equal(it.Matches, []string{y}) || it.role != roleAnswer || it.stub {
		t.Fatalf("the edge's verdict: %q, matches %v, role %d, stub %v", why, it.Matches, it.role, it.stub)
	}
	it.Matches = []string{z}

	unfolded := map[string]bool{}
	if err := n.stash(ctx, []item{it}, tNow, unfolded); err != nil {
		t.Fatal(err)
	}
	if !unfolded[z] || unfolded[y] {
		t.Errorf("the stash listed %v, want the item's match %s alone", unfolded, z[:8])
	}
	for m, want := range map[string]int{z: 1, y: 0} {
		evs, err := n.st.MatchEvents(ctx, m)
		if err != nil || len(evs) != want {
			t.Errorf("the store holds %d events under %s (%v), want %d", len(evs), m[:8], err, want)
		}
	}

	reveal := make(chan []string, 1)
	n.revealed(ctx, []item{it}, map[string]bool{}, reveal)
	select {
	case got := <-reveal:
		if !slices.Equal(got, []string{z}) {
			t.Errorf("the reveals asked for %v, want %s", got, z[:8])
		}
	default:
		t.Error("the reveals asked for nothing")
	}

	it.role = roleChallenge // a role no kind says: challengeIDs reads the role
	if got := challengeIDs([]item{it}); !slices.Equal(got, []string{mv.ID}) {
		t.Errorf("challengeIDs %v, want the item the edge called a challenge", got)
	}
}

// The edge's verdicts: what it keeps, with which role, and the reason
// (counted in metrics) for what it does not.
func TestClassifyVerdicts(t *testing.T) {
	a := testkit.Key("alice")
	m := testkit.NewMatch(a, testkit.Key("bob"), nostr.GameChess, "", tNow-100)
	sign := func(kind int, tags nostr.Tags, content string) *nostr.Event {
		return testkit.Sign(a, &nostr.Event{Kind: kind, CreatedAt: nostr.Timestamp(tNow - 50), Tags: tags, Content: content})
	}
	g := nostr.Tags{{"g", m.ID}}
	for _, tc := range []struct {
		name string
		ev   *nostr.Event
		role role
		why  string
	}{
		{"challenge", m.Events[0], roleChallenge, ""},
		{"accept", m.Accept(tNow - 90), roleAnswer, ""},
		{"move", sign(nostr.KindMove, nostr.Tags{{"g", m.ID}, {"ply", "1"}}, "e2e4"), roleAnswer, ""},
		{"reveal", sign(nostr.KindReveal, g, "{}"), roleReveal, ""},
		{"reveal with two g tags", sign(nostr.KindReveal, nostr.Tags{{"g", m.ID}, {"g", m.ID}}, "{}"), 0, "reveal"},
		{"profile kind elsewhere", sign(1, g, "hi"), 0, "kind"},
		{"move naming no match", sign(nostr.KindMove, nostr.Tags{{"g", "x"}}, "e2e4"), 0, "no_match"},
	} {
		it, why := classify(tc.ev, "ws://a", tNow)
		if why != tc.why || why == "" && (it.role != tc.role || !it.Classified()) {
			t.Errorf("%s: verdict %q, role %d, classified %v; want %q, role %d", tc.name, why, it.role, it.Classified(), tc.why, tc.role)
		}
	}
}

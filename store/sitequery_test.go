package store

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"testing"

	"vesper/internal/testkit"
	"vesper/nostr"
)

// TestMatchStamps: every event of every match, grouped by match in id
// order, with the seen_at it was first stored with; an event in two
// matches (a challenge's own match and a move naming another) is listed
// under each.
func TestMatchStamps(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	alice, bob := testkit.Key("alice"), testkit.Key("bob")
	a := testkit.NewMatch(alice, bob, "chess", "", 1_700_000_000)
	a.Accept(1_700_000_060)
	b := testkit.NewMatch(bob, alice, "gomoku", "", 1_700_000_100)
	type stamp struct {
		match, id string
		seen      int64
	}
	var want []stamp
	for i, ev := range append(slices.Clone(a.Events), b.Events...) {
		seen := int64(1_700_000_500 + i)
		if _, err := s.PutEvent(ctx, ev, nostr.MarshalEvent(ev), "wss://a.invalid", seen); err != nil {
			t.Fatal(err)
		}
		for _, m := range MatchesOf(ev) {
			want = append(want, stamp{m, ev.ID, seen})
		}
	}
	// Stored again later from another relay: seen_at stays the first.
	if _, err := s.PutEvent(ctx, a.Events[0], nostr.MarshalEvent(a.Events[0]), "wss://b.invalid", 1_800_000_000); err != nil {
		t.Fatal(err)
	}
	var got []stamp
	err := s.MatchStamps(ctx, func(m, id string, seen int64) error {
		got = append(got, stamp{m, id, seen})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	byMatch := func(x, y stamp) int { return strings.Compare(x.match, y.match) }
	if !slices.IsSortedFunc(got, byMatch) {
		t.Errorf("stamps not grouped by match in order: %v", got)
	}
	key := func(x, y stamp) int { return cmp.Or(byMatch(x, y), strings.Compare(x.id, y.id)) }
	slices.SortFunc(got, key)
	slices.SortFunc(want, key)
	if !slices.Equal(got, want) {
		t.Errorf("stamps\n got %v\nwant %v", got, want)
	}
}

// TestMatchEventsSeen: the site's read gives MatchEvents' events, in its
// order, with the same seen_at.
func TestMatchEventsSeen(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	alice, bob := testkit.Key("alice"), testkit.Key("bob")
	m := testkit.NewMatch(alice, bob, "chess", "", 1_700_000_000)
	m.Accept(1_700_000_060)
	m.Play([]string{"e2e4", "e7e5", "g1f3"}, 1_700_000_100, 30)
	// Ties in created_at go by id, and the challenge comes first even
	// after an event stamped before it.
	for _, mv := range []string{"d7d5", "c7c5", "b7b5", "a7a5", "h7h5", "g7g5"} {
		m.Move(bob, 2, mv, 1_700_000_130)
	}
	m.Move(alice, 1, "d2d4", 1_699_999_000)
	for i := len(m.Events) - 1; i >= 0; i-- { // stored out of order
		ev := m.Events[i]
		if _, err := s.PutEvent(ctx, ev, nostr.MarshalEvent(ev), "wss://a.invalid", int64(ev.CreatedAt)+int64(i)); err != nil {
			t.Fatal(err)
		}
	}
	want, err := s.MatchEvents(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	evs, seen, err := s.MatchEventsSeen(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != len(want) || len(seen) != len(want) {
		t.Fatalf("%d events, %d seen_at; want %d", len(evs), len(seen), len(want))
	}
	for i, w := range want {
		if evs[i].ID != w.Event.ID || seen[w.Event.ID] != w.SeenAt {
			t.Errorf("event %d: %s seen %d, want %s seen %d", i, evs[i].ID, seen[evs[i].ID], w.Event.ID, w.SeenAt)
		}
	}
}

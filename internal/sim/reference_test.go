package sim

import (
	"context"
	"fmt"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
)

// forgedRelay is a relay holding n valid moves and, among the newest, one
// copy of a move whose signature no longer matches: a relay that stores
// what it is sent without checking.
func forgedRelay(t *testing.T, n int) (*Fleet, int) {
	t.Helper()
	ctx := context.Background()
	f, err := StartFleet(ctx, []RelaySpec{{Name: "forged", MaxLimit: 100}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	k := testkit.Key("forger")
	base := time.Now().Unix() - 100000
	var last *nostr.Event
	for i := range n {
		last = testkit.Sign(k, nostr.NewMove(fmt.Sprintf("%064x", 3), 1, "e2e4", base+int64(i)))
		if err := f.Publish(ctx, 0, last); err != nil {
			t.Fatal(err)
		}
	}
	forged := *last
	forged.Content = "e2e4 "
	forged.ID = nostr.ComputeID(&forged) // the old signature does not match
	if err := f.Inject(ctx, 0, &forged); err != nil {
		t.Fatal(err)
	}
	return f, n
}

func TestFetchAllPagesPastForgedEvents(t *testing.T) {
	f, n := forgedRelay(t, 350)
	got, err := FetchAll(context.Background(), f.DirectURLs(), testkit.Scale(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("fetched %d events, want the %d valid ones", len(got), n)
	}
}

// TestReferenceFoldsEveryMatch: Reference is the fold of each match's own
// events, whatever else the list holds.
func TestReferenceFoldsEveryMatch(t *testing.T) {
	s, err := Generate(Config{Seed: 8, Agents: 5, Matches: 15, End: testEnd})
	if err != nil {
		t.Fatal(err)
	}
	ref := Reference(s.Events(), nil)
	for _, m := range s.Matches {
		want, err := match.Fold(m.ID, m.Events, nil)
		got, ok := ref[m.ID]
		switch {
		case err != nil && ok:
			t.Errorf("match %s (%s): no match alone, but in the reference", m.ID, m.Plan)
		case err == nil && !ok:
			t.Errorf("match %s (%s): missing from the reference", m.ID, m.Plan)
		case err == nil && string(match.MarshalLine(got.Summary(testEnd))) != string(match.MarshalLine(want.Summary(testEnd))):
			t.Errorf("match %s (%s): the reference differs from the match's own fold", m.ID, m.Plan)
		}
	}
}

package daemon

import (
	"context"
	"regexp"
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/arbiter"
	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
	"vesper/nostr/relay"
	"vesper/relayd"
	"vesper/site"
)

// TestGameRecordRatingsAsPGN (issue 34): the NIP-64 record of a daemon
// that builds no site carries the ratings `vesper pgn` prints for the same
// match from the same store (site.PGN of SiteInput and StoredRatingGames):
// a WhiteElo and BlackElo, not "-", and the rating-difference tags.
func TestGameRecordRatingsAsPGN(t *testing.T) {
	rl := startRelays(t, 1, relayd.Options{})[0]
	st := openStore(t)
	house, alice, bob := testkit.Key("house"), testkit.Key("alice"), testkit.Key("bob")
	cfg := Config{Store: st, Key: house, Relays: []string{rl.URL()}, Arbiter: arbiter.Config{}, Log: discardLog(),
		Run: Options{Tick: 50 * time.Millisecond, FirstSyncWait: testkit.Scale(time.Second)}}
	now := time.Now().Unix() - 100
	mate := testkit.NewMatch(alice, bob, "chess", "", now)
	mate.Accept(now + 1)
	last := mate.Play(demoGame, now+2, 1)
	s, err := match.Fold(mate.ID, mate.Events, nil)
	if err != nil || !s.Over {
		t.Fatalf("scholar's mate did not end: %v", err)
	}
	mate.Result(alice, s.Computed(), last+1)
	mate.Result(bob, s.Computed(), last+2)
	ctx := context.Background()
	for _, ev := range append([]*nostr.Event{botProfile(alice, now), botProfile(bob, now)}, mate.Events...) {
		if ok := relay.Accepted(relay.Publish(ctx, []string{rl.URL()}, ev, testkit.Scale(5*time.Second))); len(ok) == 0 {
			t.Fatalf("the relay refused %s", ev.ID)
		}
	}
	// The worker's first pass comes at start, every minute after: a first
	// run syncs the match and the players' bot profiles (without which the
	// house records nothing), and the second one's first pass records it.
	d := running(t, cfg)
	waitFor(t, "the final match and its players' profiles in the store", 30*time.Second, func() bool {
		due, err := st.FinalWithoutDuty(ctx, nostr.GameChess, recordDuty(""), 10)
		_, recorded, _ := st.OutboxGet(ctx, recordDuty(mate.ID))
		_, a, _ := st.Profile(ctx, alice.PublicKey())
		_, b, _ := st.Profile(ctx, bob.PublicKey())
		return (err == nil && len(due) == 1 || recorded) && a && b
	})
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	var rec *nostr.Event
	d = running(t, cfg)
	waitFor(t, "the game record on the relay", 30*time.Second, func() bool {
		got, err := relay.Fetch(ctx, []string{rl.URL()}, []gn.Filter{{Kinds: []int{nostr.KindGameRecord}}}, testkit.Scale(5*time.Second))
		if err != nil || len(got) == 0 {
			return false
		}
		rec = got[0].Event
		return true
	})
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}

	// What `vesper pgn --store` prints (cmd/vesper/pgncmd.go).
	evs, seen, err := st.MatchEventsSeen(ctx, mate.ID)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := match.Fold(mate.ID, evs, seen)
	if err != nil || !stored.Final {
		t.Fatalf("the stored match: final %v, %v", stored != nil && stored.Final, err)
	}
	in, err := SiteInput(ctx, st, "", time.Now().Unix())
	if err != nil {
		t.Fatal(err)
	}
	if in.RatingGames, err = StoredRatingGames(ctx, st); err != nil {
		t.Fatal(err)
	}
	want, err := site.PGN(in, stored)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"WhiteElo", "BlackElo", "WhiteRatingDiff", "BlackRatingDiff"} {
		got, exp := pgnTag(rec.Content, name), pgnTag(want, name)
		if got != exp || exp == "" || exp == "-" {
			t.Errorf("record's %s %q, vesper pgn's %q; want the same rating", name, got, exp)
		}
	}
}

// pgnTag is the value of a PGN tag ("" when absent).
func pgnTag(text, name string) string {
	m := regexp.MustCompile(`(?m)^\[` + name + ` "([^"]*)"\]$`).FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	return m[1]
}

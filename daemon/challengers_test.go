package daemon

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/nostr"
	"vesper/nostr/relay"
)

// TestChallengerProfilesFetched (issue 26, item 3): a new bot's open
// challenge, whether the relays held it before the daemon started or it
// came later, reaches the index (bots only, the default): its
// challenger's profile is fetched though nobody accepted.
func TestChallengerProfilesFetched(t *testing.T) {
	rl, _, siteDir, cfg := siteDaemon(t)
	ctx := context.Background()
	publish := func(evs ...*nostr.Event) {
		for _, ev := range evs {
			if ok := relay.Accepted(relay.Publish(ctx, []string{rl.URL()}, ev, testkit.Scale(30*time.Second))); len(ok) == 0 {
				t.Fatalf("the relay refused %s", ev.ID)
			}
		}
	}
	newBot := func(name string) []*nostr.Event {
		k := testkit.Key(name)
		now := time.Now().Unix()
		return []*nostr.Event{
			testkit.Sign(k, &nostr.Event{Kind: nostr.KindProfile, CreatedAt: nostr.Timestamp(now - 60), Content: `{"name":"` + name + `","bot":true}`}),
			testkit.Sign(k, nostr.NewChallenge("chess", "", now-30)),
		}
	}
	onIndex := func(name string) {
		t.Helper()
		waitFor(t, name+"'s open challenge on the index", testkit.Scale(20*time.Second), func() bool {
			page, err := os.ReadFile(filepath.Join(siteDir, "index.html"))
			return err == nil && strings.Contains(string(page), name)
		})
	}
	publish(newBot("Earlybot")...)
	running(t, cfg)
	onIndex("Earlybot")
	publish(newBot("Latebot")...)
	onIndex("Latebot")
}

// TestAskChallengersOnce: a challenger's profile is asked for once per
// run, only while its challenge is open and the store lacks the profile;
// the players of an accepted match are the follow's, not asked.
func TestAskChallengersOnce(t *testing.T) {
	ctx := context.Background()
	n := testNode(t, testkit.Key("house"))
	l := n.newLoop(Options{})
	alice, bob, carol := testkit.Key("alice"), testkit.Key("bob"), testkit.Key("carol")
	open := testkit.NewMatch(alice, bob, "chess", "", tNow-100)
	open2 := testkit.NewMatch(alice, bob, "gomoku", "", tNow-90)
	taken := testkit.NewMatch(bob, alice, "chess", "", tNow-80)
	taken.Accept(tNow - 70)
	known := testkit.NewMatch(carol, bob, "chess", "", tNow-60)
	deliver(t, n, "ws://honest", append(append(append(open.Events, open2.Events...), taken.Events...), known.Events...)...)
	deliver(t, n, "ws://honest", testkit.Sign(carol, &nostr.Event{Kind: nostr.KindProfile, CreatedAt: nostr.Timestamp(tNow - 200), Content: `{}`}))
	l.askChallengers(ctx, []string{open.ID, open2.ID, taken.ID, known.ID})
	l.askChallengers(ctx, []string{open.ID})
	var asked []string
	for len(l.profileAsk) > 0 {
		asked = append(asked, <-l.profileAsk...)
	}
	if !slices.Equal(asked, []string{alice.PublicKey()}) {
		t.Errorf("asked for %d profiles, want alice's once", len(asked))
	}
}

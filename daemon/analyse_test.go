package daemon

import (
	"context"
	"testing"
	"time"

	"vesper/analysis"
	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
	"vesper/nostr/relay"
	"vesper/relayd"
)

// TestDaemonAnalysesFinishedGames: a game that ends and turns final on
// the relays is graded in the background and the grade stored, with the
// built-in engine and with Stockfish (issue 18); the game in progress
// beside it is not.
func TestDaemonAnalysesFinishedGames(t *testing.T) {
	engines := map[string]analysis.Options{"builtin": {Nodes: 3000}}
	if path, err := analysis.FindStockfish(""); err == nil {
		engines["stockfish"] = analysis.Options{Path: path, Depth: 6}
	} else {
		t.Log("no Stockfish installed: its case is skipped (.ci/run installs it)")
	}
	for name, eng := range engines {
		t.Run(name, func(t *testing.T) {
			rl := startRelays(t, 1, relayd.Options{})[0]
			st := openStore(t)
			running(t, Config{Store: st, Relays: []string{rl.URL()}, Log: discardLog(),
				Run:      Options{Tick: 50 * time.Millisecond, FirstSyncWait: testkit.Scale(time.Second)},
				Analysis: &AnalysisOptions{Engine: eng, Share: 1}})
			alice, bob := testkit.Key("alice"), testkit.Key("bob")
			now := time.Now().Unix() - 100
			m := testkit.NewMatch(alice, bob, "chess", "", now)
			m.Accept(now + 1)
			last := m.Play(demoGame, now+2, 1)
			s, err := match.Fold(m.ID, m.Events, nil)
			if err != nil || !s.Over {
				t.Fatalf("scholar's mate did not end: %v", err)
			}
			m.Result(alice, s.Computed(), last+1)
			m.Result(bob, s.Computed(), last+2)
			live := testkit.NewMatch(bob, alice, "chess", "", now)
			live.Accept(now + 1)
			live.Move(bob, 1, "e2e4", now+2)
			ctx := context.Background()
			for _, ev := range append(append([]*nostr.Event{}, m.Events...), live.Events...) {
				if ok := relay.Accepted(relay.Publish(ctx, []string{rl.URL()}, ev, testkit.Scale(5*time.Second))); len(ok) == 0 {
					t.Fatalf("the relay refused %s", ev.ID)
				}
			}
			waitFor(t, "the finished game's analysis", 60*time.Second, func() bool {
				_, ok, err := st.Analysis(ctx, m.ID)
				return err == nil && ok
			})
			row, _, _ := st.Analysis(ctx, m.ID)
			g, err := analysis.Parse(row.JSON)
			if err != nil || g.Status != analysis.StatusDone || len(g.Moves) != len(demoGame) {
				t.Fatalf("analysis %s: %+v, %v; want done with %d moves", row.Status, g, err, len(demoGame))
			}
			if mate := g.Moves[len(g.Moves)-1]; mate.Tag != analysis.TagBest {
				t.Errorf("the mating move is graded %s, want best", mate.Tag)
			}
			if _, ok, _ := st.Analysis(ctx, live.ID); ok {
				t.Error("a game in progress was analysed")
			}
		})
	}
}

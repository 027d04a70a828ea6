package play_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/testkit"
	"vesper/internal/testkit/playtest"
	"vesper/match"
	"vesper/nostr"
	"vesper/nostr/relay"
	"vesper/play"
	"vesper/reveal"
)

// The shared setup of the runner's tests (internal/testkit/playtest).
var (
	startRelay = playtest.Relay
	publish    = playtest.Publish
	fold       = playtest.Fold
	eventually = playtest.Eventually
)

// runner runs a runner for key with the built-in engine until the test ends.
func runner(t *testing.T, url string, key nostr.SecretKey) {
	t.Helper()
	playtest.Run(t, url, key, play.Config{Policy: play.Policy{MaxGames: 5},
		NewMover: func(string) play.Mover { return &play.Builtin{Limits: play.Limits{Nodes: 500}} }})
}

// TestRunnerClaimsTimeoutWhenTheClockRunsOut: the opponent's clock runs
// out while the runner follows the game (3 s after it starts); no event
// arrives, and the stream's own timer wakes the runner to claim the win
// (PROTOCOL.md section 2, results), final on its own.
func TestRunnerClaimsTimeoutWhenTheClockRunsOut(t *testing.T) {
	url := startRelay(t)
	me, opp := testkit.Key("runner"), testkit.Key("opponent")
	// The second player's clock (ply 2) starts at the accept and runs out
	// 3 s from now.
	deadline := time.Now().Unix() + 3
	accept := deadline - match.MoveClock
	m := testkit.NewMatch(me, opp, "gomoku", opp.PublicKey(), accept-5)
	m.Accept(accept)
	m.Move(me, 1, "h8", accept+5)
	publish(t, url, m.Events...)
	runner(t, url, me)
	eventually(t, "a timeout claim", func() bool { return fold(t, url, m.ID).Final })
	st := fold(t, url, m.ID)
	if st.EndedAt <= deadline {
		t.Fatalf("the claim is stamped %d, not after the deadline %d", st.EndedAt, deadline)
	}
	if st.FinalBy != match.FinalByTimeout || st.Result != match.First {
		t.Fatalf("final by %s, result %s; want the runner's timeout win", st.FinalBy, st.Result)
	}
}

// TestRunnerSignsAndAsksForArbitration: a game the opponent resigned more
// than a day ago and never signed: the runner signs the computed result
// and, the signature still missing a day after the end, asks for
// arbitration (section 2, arbitration).
func TestRunnerSignsAndAsksForArbitration(t *testing.T) {
	url := startRelay(t)
	me, opp := testkit.Key("runner"), testkit.Key("opponent")
	start := time.Now().Unix() - match.MoveClock - 100
	m := testkit.NewMatch(me, opp, "gomoku", opp.PublicKey(), start)
	m.Accept(start + 5)
	m.Move(me, 1, "h8", start+10)
	m.Move(opp, 2, nostr.ResignContent, start+20)
	publish(t, url, m.Events...)
	runner(t, url, me)
	eventually(t, "the runner's signature and request", func() bool {
		st := fold(t, url, m.ID)
		_, signed := st.Sigs[match.First]
		return signed && len(st.Requests) == 1
	})
	st := fold(t, url, m.ID)
	if st.Requests[0].Author != me.PublicKey() {
		t.Fatalf("request by %s", st.Requests[0].Author)
	}
}

// TestRunnerTakesAWaitingInvitation: with MaxGames 1, an invitation that
// comes during a game is declined for the moment and taken once that game
// ends (the stream says nothing new about it: the runner remembers it).
func TestRunnerTakesAWaitingInvitation(t *testing.T) {
	url := startRelay(t)
	me, a, b := testkit.Key("runner"), testkit.Key("first challenger"), testkit.Key("second challenger")
	lines := make(chan play.Line, 100)
	playtest.Run(t, url, me, play.Config{Dir: t.TempDir(),
		Policy:   play.Policy{MaxGames: 1, Invitations: true},
		NewMover: func(string) play.Mover { return &play.Builtin{Limits: play.Limits{Nodes: 500}} },
		Out: func(l play.Line) {
			select {
			case lines <- l:
			default: // the test reads only the first lines
			}
		}})

	now := time.Now().Unix()
	first := testkit.Sign(a, nostr.NewChallenge("gomoku", me.PublicKey(), now))
	publish(t, url, first)
	eventually(t, "the first accept", func() bool { return fold(t, url, first.ID).Accepted })
	second := testkit.Sign(b, nostr.NewChallenge("gomoku", me.PublicKey(), now))
	publish(t, url, second)
	// Every wait has a deadline: a runner that never declines fails here
	// rather than hanging the suite.
	for deadline := time.After(testkit.Scale(2 * time.Minute)); ; {
		var l play.Line
		select {
		case l = <-lines:
		case <-deadline:
			t.Fatal("no decline line for the second invitation")
		}
		if l.Type == "decline" && l.Match == second.ID {
			break
		}
	}
	if fold(t, url, second.ID).Accepted {
		t.Fatal("a second game was taken beyond MaxGames 1")
	}
	st := fold(t, url, first.ID)
	publish(t, url, testkit.Sign(a, nostr.NewMove(first.ID, 1, nostr.ResignContent, st.Stamp(time.Now().Unix()))))
	eventually(t, "the waiting invitation taken", func() bool { return fold(t, url, second.ID).Accepted })
}

// TestRunnerAgentTakesADrawOffer: the opponent offers a draw while it is
// its own turn; the runner asks the agent (the request names the offer),
// the agent answers accept_offer, and the runner's signature makes the
// draw final by agreement.
func TestRunnerAgentTakesADrawOffer(t *testing.T) {
	url := startRelay(t)
	me, opp := testkit.Key("runner"), testkit.Key("opponent")
	m := drawOffered(t, url, me, opp)
	dir := t.TempDir()
	agent := filepath.Join(dir, "agent.sh")
	// It takes the offer only when the request names one.
	body := "#!/bin/sh\nread -r req\ncase \"$req\" in *'\"offer\":\"draw\"'*) echo '{\"accept_offer\":true}';; *) echo '{\"move\":\"resign\"}';; esac\n"
	if err := os.WriteFile(agent, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	playtest.Run(t, url, me, play.Config{Dir: dir,
		NewMover: func(string) play.Mover {
			return &play.Agent{Cmd: play.Command{Argv: []string{agent}, Timeout: testkit.Scale(time.Minute)}}
		}})
	eventually(t, "the agreed draw", func() bool { return fold(t, url, m.ID).Final })
	if st := fold(t, url, m.ID); st.Result != match.Draw || st.FinalBy != match.FinalBySignatures {
		t.Fatalf("result %s by %s, want a draw by signatures", st.Result, st.FinalBy)
	}
}

// fixed is a mover that always answers the same move.
type fixed string

func (f fixed) Choose(context.Context, play.Request) play.Choice {
	return play.Choice{Answer: play.Answer{Move: string(f)}}
}
func (f fixed) Close() error { return nil }

// TestRunnerReplaysTheJournaledMove: a crash came after the move for ply 3
// was journaled (and synced) but before it reached a relay. The restarted
// runner sends that move, not a new decision: had the first publication
// reached a relay after all, a new decision would be a second, different
// move for the same ply.
func TestRunnerReplaysTheJournaledMove(t *testing.T) {
	url := startRelay(t)
	me, opp := testkit.Key("runner"), testkit.Key("opponent")
	m := gomokuGame(t, url, me, opp, "h8", "a1")
	dir := t.TempDir()
	j, err := play.OpenJournal(filepath.Join(dir, "games"), m.ID)
	if err != nil {
		t.Fatal(err)
	}
	_ = j.Append(play.Entry{Type: play.EntryStart})
	if err := j.Append(play.Entry{Type: play.EntryIntent, Ply: 3, Move: "c3"}); err != nil {
		t.Fatal(err)
	}
	playtest.Run(t, url, me, play.Config{Dir: dir,
		NewMover: func(string) play.Mover { return fixed("o15") }})
	eventually(t, "ply 3", func() bool { return fold(t, url, m.ID).Plies() >= 3 })
	if st := fold(t, url, m.ID); st.Moves[2] != "c3" {
		t.Fatalf("ply 3 is %s, want the journaled c3", st.Moves[2])
	}
}

// invitations counts the challenges by author that invite invitee.
func invitations(t *testing.T, url, author, invitee string) int {
	t.Helper()
	got, err := relay.FetchWith(context.Background(), []string{url},
		[]gn.Filter{{Kinds: []int{nostr.KindChallenge}, Authors: []string{author}, Tags: gn.TagMap{"p": {invitee}}}},
		relay.FetchOptions{Timeout: testkit.Scale(10 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	return len(got)
}

// TestRunnerChallengesAListOnce: each player of Config.Challenge is
// invited once; a restart with a longer list invites only the new one.
func TestRunnerChallengesAListOnce(t *testing.T) {
	url := startRelay(t)
	me, a, b := testkit.Key("runner"), testkit.Key("first invitee"), testkit.Key("second invitee")
	dir := t.TempDir()
	run := func(list ...string) func() {
		_, _, stop := playtest.Start(t, url, me, play.Config{Dir: dir,
			Challenge: list, OpenGame: "gomoku", NewMover: func(string) play.Mover { return fixed("h8") }})
		return stop
	}
	stop := run(a.PublicKey())
	eventually(t, "the first invitation", func() bool { return invitations(t, url, me.PublicKey(), a.PublicKey()) == 1 })
	stop()
	stop = run(a.PublicKey(), b.PublicKey())
	defer stop()
	eventually(t, "the second invitation", func() bool { return invitations(t, url, me.PublicKey(), b.PublicKey()) == 1 })
	if n := invitations(t, url, me.PublicKey(), a.PublicKey()); n != 1 {
		t.Fatalf("%d invitations to the first player after a restart, want 1", n)
	}
}

// TestRunnerTakesAnOpenChallenge: with Policy.Open, an open challenge of
// another player (seen on the key's stream without being followed) is
// accepted and played; one of a game the policy does not play is not.
func TestRunnerTakesAnOpenChallenge(t *testing.T) {
	url := startRelay(t)
	me, a, b := testkit.Key("runner"), testkit.Key("open challenger"), testkit.Key("chess challenger")
	now := time.Now().Unix()
	chess := testkit.Sign(b, nostr.NewChallenge("chess", "", now))
	gomoku := testkit.Sign(a, nostr.NewChallenge("gomoku", "", now))
	publish(t, url, chess, gomoku)
	playtest.Run(t, url, me, play.Config{Dir: t.TempDir(),
		Policy:   play.Policy{Open: true, Games: []string{"gomoku"}, MaxGames: 2},
		NewMover: func(string) play.Mover { return &play.Builtin{Limits: play.Limits{Nodes: 500}} }})
	eventually(t, "the open challenge accepted and the first reply", func() bool { return fold(t, url, gomoku.ID).Accepted })
	st := fold(t, url, gomoku.ID)
	publish(t, url, testkit.Sign(a, nostr.NewMove(gomoku.ID, 1, "h8", st.Stamp(time.Now().Unix()))))
	eventually(t, "the runner's move", func() bool { return fold(t, url, gomoku.ID).Plies() == 2 })
	if fold(t, url, chess.ID).Accepted {
		t.Fatal("a chess challenge was taken by a gomoku-only policy")
	}
}

// talker answers an illegal move first, then e2e4 with table talk,
// reasoning and usage (PROTOCOL.md section 8).
type talker struct{}

func (talker) Choose(_ context.Context, req play.Request) play.Choice {
	if req.Attempt == 1 {
		return play.Choice{Answer: play.Answer{Move: "e2e5"}}
	}
	return play.Choice{Answer: play.Answer{Move: "e2e4", Comment: "the centre", Reasoning: "e4 takes the centre",
		Usage: []byte(`{"output_tokens":42,"cost_usd":0.01,"unknown":1}`)}}
}
func (talker) Close() error { return nil }

// TestRunnerPublishesTalkAndReveals: the runner's move carries the agent's
// comment, a committed reasoning, attempts (the refused answers before it)
// and usage; once the opponent resigns and both sign, the reasoning is
// revealed and verifies.
func TestRunnerPublishesTalkAndReveals(t *testing.T) {
	url := startRelay(t)
	me, opp := testkit.Key("talk-runner"), testkit.Key("talk-opponent")
	m := acceptedGame(t, url, nostr.GameChess, me, opp)
	playtest.Run(t, url, me, play.Config{Retries: 2, NewMover: func(string) play.Mover { return talker{} }})

	eventually(t, "the runner's move", func() bool { return fold(t, url, m.ID).Plies() == 1 })
	st := fold(t, url, m.ID)
	mv := eventOf(st, st.MoveEvents[0])
	if c, _ := nostr.Comment(mv); c != "the centre" {
		t.Fatalf("comment %q", c)
	}
	if n, ok, err := nostr.Attempts(mv); !ok || err != nil || n != 1 {
		t.Fatalf("attempts %d %v %v, want 1 (the refused e2e5)", n, ok, err)
	}
	if u, ok, err := nostr.ReadUsage(mv); !ok || err != nil || u.JSON() != `{"output_tokens":42,"cost_usd":0.01}` {
		t.Fatalf("usage %s %v %v", u.JSON(), ok, err)
	}
	if _, ok := nostr.Reasoning(mv); !ok {
		t.Fatal("no reasoning committed")
	}
	// The opponent resigns and signs; the runner signs, which makes the
	// result final and reveals.
	at := int64(mv.CreatedAt) + 1
	m.Move(opp, 2, nostr.ResignContent, at)
	after, err := match.Fold(m.ID, append(st.Events, m.Events[len(m.Events)-1]), nil)
	if err != nil || !after.Over {
		t.Fatalf("resignation: %v", err)
	}
	m.Result(opp, after.Computed(), at+1)
	publish(t, url, m.Events[len(m.Events)-2:]...)
	var rep reveal.Report
	eventually(t, "the reveal", func() bool {
		_, rep = playtest.Reveals(t, url, m.ID)
		return len(rep.Entries) == 1 && rep.Entries[0].Status != reveal.Unrevealed
	})
	if e := rep.Entries[0]; e.Status != reveal.Verified || e.Text != "e4 takes the centre" {
		t.Fatalf("entry %+v", e)
	}
}

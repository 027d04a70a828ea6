package play_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/internal/testkit/playtest"
	"vesper/match"
	"vesper/nostr"
	"vesper/play"
	"vesper/relayd"
	"vesper/seat"
)

// The promises of play/doc.go, one test each (issue 35, item 11): each
// fails when the promise is broken.

// start runs a runner on cfg (Seat and Dir filled in when empty) until
// the test ends.
func start(t *testing.T, url string, key nostr.SecretKey, cfg play.Config) (*seat.Seat, string) {
	t.Helper()
	return playtest.Run(t, url, key, cfg)
}

// eventOf is the event id of the match's fold.
func eventOf(st *match.State, id string) *nostr.Event {
	for _, ev := range st.Events {
		if ev.ID == id {
			return ev
		}
	}
	return nil
}

// scripted answers from a list, one per call (the last one repeated), and
// records every request.
type scripted struct {
	mu      sync.Mutex
	answers []play.Choice
	reqs    []play.Request
}

func (s *scripted) Choose(_ context.Context, req play.Request) play.Choice {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, req)
	i := min(len(s.reqs), len(s.answers)) - 1
	return s.answers[i]
}
func (s *scripted) Close() error { return nil }

func (s *scripted) requests() []play.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]play.Request(nil), s.reqs...)
}

// gomokuGame publishes an accepted gomoku game where the runner's key
// plays first, with moves played alternately from ply 1 (none: the
// runner's key is to move at ply 1).
func gomokuGame(t *testing.T, url string, me, opp nostr.SecretKey, moves ...string) *testkit.Match {
	t.Helper()
	return acceptedGame(t, url, nostr.GameGomoku, me, opp, moves...)
}

// acceptedGame is gomokuGame in any game.
func acceptedGame(t *testing.T, url, game string, me, opp nostr.SecretKey, moves ...string) *testkit.Match {
	t.Helper()
	now := time.Now().Unix()
	m := testkit.NewMatch(me, opp, game, opp.PublicKey(), now-10)
	m.Accept(now - 9)
	if len(moves) > 0 {
		m.Play(moves, now-8, 1)
	}
	publish(t, url, m.Events...)
	return m
}

// drawOffered publishes a gomoku game to me from opp, accepted, where me
// played ply 1 and opp then offered a draw on its own turn.
func drawOffered(t *testing.T, url string, me, opp nostr.SecretKey) *testkit.Match {
	t.Helper()
	now := time.Now().Unix()
	m := testkit.NewMatch(me, opp, "gomoku", opp.PublicKey(), now-10)
	m.Accept(now - 9)
	m.Move(me, 1, "h8", now-8)
	st, err := match.Fold(m.ID, m.Events, nil)
	if err != nil {
		t.Fatal(err)
	}
	m.Result(opp, nostr.Result{Result: match.Draw, Reason: string(match.ReasonAgreement), Plies: 1, FinalHash: st.FinalHash()}, now-7)
	publish(t, url, m.Events...)
	return m
}

// Promise: a refused answer is asked again up to Retries times (the last
// try is the Retries+1st), and the move carries the attempts refused and
// the sum of every attempt's usage, missing keys absent. A runner that
// gives one attempt fewer plays the random fallback instead.
func TestPromiseRetriesAndSummedUsage(t *testing.T) {
	url := startRelay(t)
	me, opp := testkit.Key("retry runner"), testkit.Key("retry opponent")
	m := gomokuGame(t, url, me, opp)
	illegal := play.Choice{Answer: play.Answer{Move: "z99", Usage: []byte(`{"output_tokens":10,"input_tokens":100}`)}}
	mover := &scripted{answers: []play.Choice{illegal, illegal,
		{Answer: play.Answer{Move: "h8", Comment: "centre", Reasoning: "the centre", Usage: []byte(`{"output_tokens":5,"latency_ms":7}`)}}}}
	start(t, url, me, play.Config{Retries: 2, NewMover: func(string) play.Mover { return mover }})
	eventually(t, "the runner's move", func() bool { return fold(t, url, m.ID).Plies() == 1 })
	st := fold(t, url, m.ID)
	ev := eventOf(st, st.MoveEvents[0])
	if ev.Content != "h8" {
		t.Fatalf("played %s, want the third answer h8 (Retries 2 gives 3 tries)", ev.Content)
	}
	if fb, _ := nostr.Fallback(ev); fb != "" {
		t.Fatalf("fallback %q on the agent's own move", fb)
	}
	if n, ok, _ := nostr.Attempts(ev); !ok || n != 2 {
		t.Fatalf("attempts %d %v, want 2", n, ok)
	}
	u, ok, err := nostr.ReadUsage(ev)
	if !ok || err != nil || u.JSON() != `{"input_tokens":200,"output_tokens":25,"latency_ms":7}` {
		t.Fatalf("usage %s %v %v, want the sum of the three attempts with no reasoning_tokens or cost", u.JSON(), ok, err)
	}
	if reqs := mover.requests(); len(reqs) != 3 || reqs[2].Refusal == nil || reqs[2].Refusal.Rule != match.IgnIllegal {
		t.Fatalf("%d requests, the last with refusal %+v", len(reqs), reqs[len(reqs)-1].Refusal)
	}
}

// Promise: when every attempt is refused, the random fallback is played
// and flagged on the event itself (PROTOCOL.md section 8.3, revision 3.1).
func TestPromiseRandomFallbackFlagged(t *testing.T) {
	url := startRelay(t)
	me, opp := testkit.Key("fallback runner"), testkit.Key("fallback opponent")
	m := gomokuGame(t, url, me, opp)
	mover := &scripted{answers: []play.Choice{{Kind: play.KindUnparsable, Why: "prose"}}}
	start(t, url, me, play.Config{Retries: 1, NewMover: func(string) play.Mover { return mover }})
	eventually(t, "the fallback move", func() bool { return fold(t, url, m.ID).Plies() == 1 })
	st := fold(t, url, m.ID)
	ev := eventOf(st, st.MoveEvents[0])
	if fb, err := nostr.Fallback(ev); fb != nostr.FallbackRandom || err != nil {
		t.Fatalf("fallback tag %q %v, want %q", fb, err, nostr.FallbackRandom)
	}
	if n, ok, _ := nostr.Attempts(ev); !ok || n != 2 {
		t.Fatalf("attempts %d, want 2", n)
	}
}

// Promise: a refusal the agent cannot fix (here the game ended while it
// thought: the opponent resigned) ends the decision; the agent is not
// asked again.
func TestPromiseNoRetryOfWhatTheAgentCannotFix(t *testing.T) {
	url := startRelay(t)
	me, opp := testkit.Key("unfixable runner"), testkit.Key("resigning opponent")
	m := gomokuGame(t, url, me, opp)
	var once sync.Once
	asked := make(chan int, 10)
	mover := moverFunc(func(req play.Request) play.Choice {
		once.Do(func() {
			st := fold(t, url, m.ID)
			publish(t, url, testkit.Sign(opp, nostr.NewMove(m.ID, 1, nostr.ResignContent, st.Stamp(time.Now().Unix()))))
		})
		asked <- req.Attempt
		return play.Choice{Answer: play.Answer{Move: "h8"}}
	})
	start(t, url, me, play.Config{Retries: 3, NewMover: func(string) play.Mover { return mover }})
	eventually(t, "the runner's signature of the resignation", func() bool {
		_, ok := fold(t, url, m.ID).Sigs[match.First]
		return ok
	})
	close(asked)
	n := 0
	for range asked {
		n++
	}
	if n != 1 {
		t.Fatalf("the agent was asked %d times; a game_over refusal is not its to fix", n)
	}
}

type moverFunc func(play.Request) play.Choice

func (f moverFunc) Choose(_ context.Context, req play.Request) play.Choice { return f(req) }
func (f moverFunc) Close() error                                           { return nil }

// Promise: a draw offer is posted after the move, on the position the
// opponent must answer; the opponent's acceptance of it makes the game
// final, and only then does the runner print it final.
func TestPromiseOfferAfterTheMove(t *testing.T) {
	url := startRelay(t)
	me, opp := testkit.Key("offering runner"), testkit.Key("accepting opponent")
	m := gomokuGame(t, url, me, opp)
	mover := &scripted{answers: []play.Choice{{Answer: play.Answer{Move: "h8", Offer: match.Draw}}}}
	lines := make(chan play.Line, 100)
	start(t, url, me, play.Config{NewMover: func(string) play.Mover { return mover }, Out: func(l play.Line) {
		select {
		case lines <- l:
		default:
		}
	}})
	eventually(t, "the move and the offer", func() bool {
		st := fold(t, url, m.ID)
		_, offered := st.Sigs[match.First]
		return st.Plies() == 1 && offered
	})
	st := fold(t, url, m.ID)
	sig := st.Sigs[match.First]
	if sig.Result.Plies != 1 || sig.Result.Result != match.Draw {
		t.Fatalf("offer %+v, want a draw on the position after the move (plies 1)", sig.Result)
	}
	for _, l := range drain(lines) {
		if l.Type == "final" {
			t.Fatalf("printed final before the opponent accepted: %+v", l)
		}
	}
	m.Result(opp, sig.Result, st.Stamp(time.Now().Unix()))
	publish(t, url, m.Events[len(m.Events)-1])
	if l := waitLine(t, lines, "final"); l.Result != play.OutcomeDraw {
		t.Fatalf("final line %+v", l)
	}
	if st := fold(t, url, m.ID); !st.Final || st.Result != match.Draw {
		t.Fatal("printed final, the relay's fold is not a final draw")
	}
}

func drain(ch chan play.Line) []play.Line {
	var out []play.Line
	for {
		select {
		case l := <-ch:
			out = append(out, l)
		default:
			return out
		}
	}
}

// waitLine reads lines until one of type typ, within a deadline.
func waitLine(t *testing.T, ch chan play.Line, typ string) play.Line {
	t.Helper()
	deadline := time.After(testkit.Scale(2 * time.Minute))
	for {
		select {
		case l := <-ch:
			if l.Type == typ {
				return l
			}
		case <-deadline:
			t.Fatalf("no %s line", typ)
		}
	}
}

// Promise: the whole signed move is journaled (and synced) before it is
// sent: while every relay refuses it, the journal already holds the signed
// event, and once a relay takes writes again that very event is the move.
func TestPromiseJournalBeforeSend(t *testing.T) {
	rl, err := relayd.Start(context.Background(), relayd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rl.Close() })
	url := rl.URL()
	me, opp := testkit.Key("journaling runner"), testkit.Key("journal opponent")
	m := gomokuGame(t, url, me, opp)
	rl.SetRejectWrites("blocked: not now")
	dir := t.TempDir()
	mover := &scripted{answers: []play.Choice{{Answer: play.Answer{Move: "h8", Comment: "c", Reasoning: "r"}}}}
	start(t, url, me, play.Config{Dir: dir, Backoff: testkit.Scale(50 * time.Millisecond), NewMover: func(string) play.Mover { return mover }})
	var signed *nostr.Event
	eventually(t, "the signed move in the journal", func() bool {
		j, _ := play.OpenJournal(filepath.Join(dir, "games"), m.ID)
		es, _ := j.Entries()
		for _, e := range es {
			if ev, err := nostr.ParseAndVerify(e.Signed); e.Type == play.EntryIntent && err == nil {
				signed = ev
			}
		}
		return signed != nil
	})
	if c, _ := nostr.Comment(signed); c != "c" || signed.Content != "h8" {
		t.Fatalf("journaled %s with comment %q", signed.Content, c)
	}
	rl.SetRejectWrites("")
	eventually(t, "the move", func() bool { return fold(t, url, m.ID).Plies() == 1 })
	if st := fold(t, url, m.ID); st.MoveEvents[0] != signed.ID {
		t.Fatalf("ply 1 is %s, not the journaled event %s", st.MoveEvents[0], signed.ID)
	}
	if n := len(mover.requests()); n != 1 {
		t.Fatalf("the agent was asked %d times for one ply", n)
	}
	// The records are the key owner's alone: they hold the reasoning.
	fi, err := os.Stat(filepath.Join(dir, "games", m.ID+".jsonl"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("journal mode %v %v, want 0600", fi.Mode().Perm(), err)
	}
}

// Promise: after a crash, the journaled event is sent again as it was
// signed (its comment, reasoning, attempts), not a new decision and not a
// bare move.
func TestPromiseResendTheExactEvent(t *testing.T) {
	url := startRelay(t)
	me, opp := testkit.Key("resending runner"), testkit.Key("resend opponent")
	m := gomokuGame(t, url, me, opp, "h8", "a1")
	now := time.Now().Unix()
	// The crashed runner had signed ply 3 with its talk and journaled it.
	att := 1
	signed := testkit.Sign(me, nostr.WithTalk(nostr.NewMove(m.ID, 3, "c3", now-6),
		nostr.Talk{Comment: "journaled", Reasoning: nostr.ReasoningHash(nostr.NewSalt(), "why"), Attempts: &att}))
	dir := t.TempDir()
	j, err := play.OpenJournal(filepath.Join(dir, "games"), m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(play.Entry{Type: play.EntryIntent, Ply: 3, Move: "c3", Signed: nostr.MarshalEvent(signed)}); err != nil {
		t.Fatal(err)
	}
	start(t, url, me, play.Config{Dir: dir, NewMover: func(string) play.Mover { return fixed("o15") }})
	eventually(t, "ply 3", func() bool { return fold(t, url, m.ID).Plies() >= 3 })
	if st := fold(t, url, m.ID); st.MoveEvents[2] != signed.ID {
		t.Fatalf("ply 3 is event %s (%s), want the journaled event %s", st.MoveEvents[2], st.Moves[2], signed.ID)
	}
}

// Promise: an offer question says so (request "offer") and carries no
// legal moves; a move request carries them.
func TestPromiseOfferQuestionIsNoMoveRequest(t *testing.T) {
	url := startRelay(t)
	me, opp := testkit.Key("asked runner"), testkit.Key("offering opponent")
	// The opponent offers on its own turn: the runner is asked about the
	// offer only.
	drawOffered(t, url, me, opp)
	mover := &scripted{answers: []play.Choice{{Answer: play.Answer{Move: "a1"}}}}
	start(t, url, me, play.Config{NewMover: func(string) play.Mover { return mover }})
	eventually(t, "the offer question", func() bool { return len(mover.requests()) > 0 })
	req := mover.requests()[0]
	if req.Request != play.RequestOffer || req.Legal != nil || req.Offer != match.Draw {
		t.Fatalf("request %q with %d legal moves and offer %q, want an offer question without legal moves", req.Request, len(req.Legal), req.Offer)
	}
}

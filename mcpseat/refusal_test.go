package mcpseat_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/mcpseat"
	"vesper/nostr"
	"vesper/relayd"
	"vesper/seat"
)

// refused calls a tool that must be refused with rule, and checks that the
// refusal is what a model can act on (isError, the one-line text naming the
// rule, the structured refusal) and that nothing reached the relay.
func refused(t *testing.T, r interface{ Count() int }, a *agent, tool string, args map[string]any, rule string) mcpseat.Refusal {
	t.Helper()
	before := r.Count()
	res := a.call(tool, args, nil)
	if !res.IsError {
		t.Fatalf("%s: %s(%v) was not refused: %s", a.name, tool, args, text(res))
	}
	rf := decode[mcpseat.Refusal](t, res)
	if rf.Rule != rule || rf.OK || rf.Reason == "" {
		t.Errorf("%s: %s(%v) refused with rule %q (%s), want %q", a.name, tool, args, rf.Rule, rf.Reason, rule)
	}
	if first := strings.SplitN(text(res), "\n", 2)[0]; !strings.HasPrefix(first, "refused ("+rule+"): ") {
		t.Errorf("%s: %s: first text line %q does not name the rule %s", a.name, tool, first, rule)
	}
	if after := r.Count(); after != before {
		t.Errorf("%s: refused %s published %d event(s)", a.name, tool, after-before)
	}
	return rf
}

// TestRefusals walks one chess match through every refusal path of the
// tools: each returns isError with its rule token (the fold's own reason
// where the fold decides) and publishes nothing. Retried actions that
// already took effect answer ok with already true.
func TestRefusals(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	white := startAgent(t, r.URL(), "ref-white")
	black := startAgent(t, r.URL(), "ref-black")
	carol := startAgent(t, r.URL(), "ref-carol")

	t.Run("arguments", func(t *testing.T) {
		refused(t, r, white, "game_state", map[string]any{"match": "not-an-id"}, mcpseat.RuleBadArgument)
		refused(t, r, white, "game_state", map[string]any{}, mcpseat.RuleBadArgument)
		refused(t, r, white, "game_state", map[string]any{"match": strings.Repeat("ab", 32)}, mcpseat.RuleNotFound)
		refused(t, r, white, "wait_turn", map[string]any{"match": strings.Repeat("ab", 32), "timeout_seconds": 30}, mcpseat.RuleNotFound)
		refused(t, r, white, "play", map[string]any{"match": strings.Repeat("ab", 32), "move": "e2e4"}, mcpseat.RuleNotFound)
		refused(t, r, white, "challenge", map[string]any{"game": "checkers"}, mcpseat.RuleBadArgument)
		refused(t, r, white, "challenge", map[string]any{"game": "chess", "extra": 1}, mcpseat.RuleBadArgument)
		refused(t, r, white, "challenge", map[string]any{"game": "chess", "invite": "npub1nope"}, mcpseat.RuleBadArgument)
		refused(t, r, white, "challenge", map[string]any{"game": "chess", "invite": white.pk}, seat.RuleInvalidChallenge)
		refused(t, r, white, "open_challenges", map[string]any{"game": "go"}, mcpseat.RuleBadArgument)
	})

	ch := ok[seat.Reply](white, "challenge", map[string]any{"game": "chess"})
	m := ch.Match
	at := func(extra ...any) map[string]any {
		args := map[string]any{"match": m}
		for i := 0; i+1 < len(extra); i += 2 {
			args[extra[i].(string)] = extra[i+1]
		}
		return args
	}

	t.Run("before the accept", func(t *testing.T) {
		refused(t, r, white, "accept", at(), "accept_self")
		refused(t, r, black, "play", at("move", "e7e5"), "not_accepted")
		refused(t, r, white, "sign_result", at(), "not_accepted")
	})

	ok[seat.Reply](black, "accept", at())
	if again := ok[seat.Reply](black, "accept", at()); !again.Already {
		t.Errorf("a second accept by the same key answered %+v, want already", again)
	}

	t.Run("in play", func(t *testing.T) {
		refused(t, r, carol, "accept", at(), "accept_extra")
		// The fold names the player a ply belongs to before it asks who else
		// plays; a spectator resigning is not a player at all.
		refused(t, r, carol, "play", at("move", "e2e4"), "wrong_player")
		refused(t, r, carol, "resign", at(), "not_player")
		refused(t, r, black, "play", at("move", "e7e5"), "wrong_player")
		rf := refused(t, r, white, "play", at("move", "e2e5"), "illegal_move")
		if len(rf.LegalMoves) != 20 || rf.Ply != 1 || rf.ToMove == nil || rf.ToMove.Pubkey != white.pk {
			t.Errorf("illegal move refusal: %d legal moves, ply %d, to_move %+v; want 20, 1, white", len(rf.LegalMoves), rf.Ply, rf.ToMove)
		}
		refused(t, r, white, "play", at(), mcpseat.RuleBadArgument)
		refused(t, r, white, "sign_result", at(), seat.RuleNotOver)
		refused(t, r, black, "claim_timeout", at(), "claim_premature")
		refused(t, r, white, "claim_timeout", at(), "claim_invalid")
		refused(t, r, white, "request_arbitration", at(), "request_invalid")
		refused(t, r, white, "offer_result", at("result", "maybe"), mcpseat.RuleBadArgument)
		refused(t, r, white, "wait_turn", at("timeout_seconds", 5000), mcpseat.RuleBadArgument)
	})

	t.Run("wait times out", func(t *testing.T) {
		before := black.progress.Load()
		// Expected to run out, after the relay's answer (without one the
		// wait is refused): 3 s leaves room for it on a busy machine.
		res := black.call("wait_turn", at("timeout_seconds", int(testkit.Scale(3*time.Second)/time.Second)), "black-timeout")
		if res.IsError {
			t.Fatalf("wait_turn refused: %s", text(res))
		}
		if w := decode[seat.Woke](t, res); w.Reason != seat.WakeTimeout || w.Status == nil || w.Status.MyTurn {
			t.Errorf("wait_turn for the waiting side answered %+v, want a timeout", w)
		}
		if black.progress.Load() == before {
			t.Errorf("no progress notification during a wait")
		}
	})

	ok[seat.Reply](white, "resign", at())
	t.Run("after the end", func(t *testing.T) {
		refused(t, r, white, "play", at("move", "e2e4"), "game_over")
		refused(t, r, black, "resign", at(), "game_over")
		if again := ok[seat.Reply](white, "resign", at()); !again.Already {
			t.Errorf("a second resign answered %+v, want already", again)
		}
		refused(t, r, black, "offer_result", at("result", "draw"), "sig_inconsistent")
	})

	ok[seat.Reply](white, "sign_result", at())
	ok[seat.Reply](black, "sign_result", at())
	t.Run("final", func(t *testing.T) {
		if again := ok[seat.Reply](white, "sign_result", at()); !again.Already || again.Status == nil || !again.Status.Final {
			t.Errorf("signing a final result again answered %+v, want already and final", again)
		}
		refused(t, r, black, "request_arbitration", at(), "already_final")
	})
}

// TestDeadRelay: with no relay answering, reads and actions are refused
// with rule "relays" naming the relay, rather than failing the protocol.
func TestDeadRelay(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	url := r.URL()
	r.Close()
	a := startAgent(t, url, "dead-relay")
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"game_state", map[string]any{"match": strings.Repeat("cd", 32)}},
		{"challenge", map[string]any{"game": "chess"}},
		{"my_games", map[string]any{}},
	} {
		res := a.call(tc.tool, tc.args, nil)
		rf := decode[mcpseat.Refusal](t, res)
		if !res.IsError || rf.Rule != mcpseat.RuleRelays || !strings.Contains(rf.Reason, url) {
			t.Errorf("%s with a dead relay: isError %v, %+v; want rule relays naming %s", tc.tool, res.IsError, rf, url)
		}
	}
}

// seed signs a match with the players' test keys and stores it on the
// relay, for positions a refusal needs that would take long to play out.
func seed(t *testing.T, r *relayd.Relay, m *testkit.Match) {
	t.Helper()
	for _, ev := range m.Events {
		if err := r.Publish(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSeededPositions: the tools on positions that would take long to play
// out, seeded on the relay. A promotion that does not name its piece is
// refused whatever its spelling (chess.js would make it a knight); nothing
// is signed after an event stamped far in the future (it would be stamped
// in the future too); an invitation to another key cannot be accepted; a
// run-out clock refuses the late move and grants the waiting side's
// timeout claim; a game whose deadline passed unsigned can go to an arbiter.
func TestSeededPositions(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	white := startAgent(t, r.URL(), "seed-white")
	black := startAgent(t, r.URL(), "seed-black")
	now := time.Now().Unix()

	// 1. a4 b5 2. axb5 a6 3. bxa6 Bb7 4. axb7 Nc6: White's pawn on b7 can
	// take the rook on a8 or step to b8, promoting either way.
	promo := testkit.NewMatch(white.key, black.key, "chess", black.pk, now-100)
	promo.Accept(now - 99)
	promo.Play([]string{"a2a4", "b7b5", "a4b5", "a7a6", "b5a6", "c8b7", "a6b7", "b8c6"}, now-98, 1)
	seed(t, r, promo)
	pm := map[string]any{"match": promo.ID}
	for _, mv := range []string{"b7a8", "b7-a8", "b7b8", "Pb7b8"} {
		pm["move"] = mv
		refused(t, r, white, "play", pm, seat.RulePromotion)
	}
	pm["move"] = "bxa8=Q"
	if rep := ok[seat.Reply](white, "play", pm); rep.Move != "b7a8q" {
		t.Errorf("bxa8=Q was posted as %q, want b7a8q", rep.Move)
	}

	// White's first move stamped two minutes ahead: verifiers count it (a
	// move may be 5 minutes early), but Black's reply would have to be
	// stamped after it, in the future.
	ahead := testkit.NewMatch(white.key, black.key, "gomoku", black.pk, now-10)
	ahead.Accept(now - 9)
	ahead.Move(white.key, 1, "h8", now+120)
	seed(t, r, ahead)
	refused(t, r, black, "play", map[string]any{"match": ahead.ID, "move": "a1"}, seat.RuleStampAhead)
	refused(t, r, black, "resign", map[string]any{"match": ahead.ID}, seat.RuleStampAhead)

	// An invitation to someone else.
	other := testkit.NewMatch(black.key, white.key, "chess", testkit.Key("seed-nobody").PublicKey(), now-5)
	seed(t, r, other)
	refused(t, r, white, "accept", map[string]any{"match": other.ID}, "accept_not_invitee")

	// Accepted 25 hours ago and White never moved: Black's claim is valid
	// and final on its own; White can no longer move.
	late := testkit.NewMatch(white.key, black.key, "chess", black.pk, now-100000)
	late.Accept(now - 90000)
	seed(t, r, late)
	lm := map[string]any{"match": late.ID}
	refused(t, r, white, "play", map[string]any{"match": late.ID, "move": "e2e4"}, "late")
	if st := ok[seat.Status](black, "game_state", lm); !st.ClockExpired || !st.CanClaimTimeout {
		t.Errorf("before the claim: clock_expired %v, can_claim_timeout %v", st.ClockExpired, st.CanClaimTimeout)
	}
	claim := ok[seat.Reply](black, "claim_timeout", lm)
	if st := claim.Status; !st.Final || st.FinalBy == nil || *st.FinalBy != "timeout" || *st.Result != "second" {
		t.Errorf("after the claim: %+v", st.Summary)
	}

	// Over by resignation 25 hours ago and signed by White only: the
	// deadline has passed, so either player may ask for arbitration.
	stale := testkit.NewMatch(white.key, black.key, "chess", black.pk, now-100000)
	stale.Accept(now - 99999)
	stale.Move(black.key, 1, "resign", now-90000)
	stale.Result(white.key, computed(t, stale), now-89999)
	seed(t, r, stale)
	if rep := ok[seat.Reply](black, "request_arbitration", map[string]any{"match": stale.ID}); rep.Status == nil || len(rep.Status.Requests) != 1 {
		t.Errorf("request_arbitration answered %+v", rep)
	}
}

// computed is the result the fold computes for a seeded match so far.
func computed(t *testing.T, m *testkit.Match) nostr.Result {
	t.Helper()
	st, err := match.Fold(m.ID, m.Events, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Over {
		t.Fatalf("seeded match %s is not over", m.ID)
	}
	return st.Computed()
}

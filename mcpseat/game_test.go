package mcpseat_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"vesper/internal/testkit"
	"vesper/nostr"
	"vesper/seat"
)

// player is one side of a scripted game: it knows nothing of the rules, only
// the moves it wants to play, and each must be among the legal moves that
// game_state offers when its turn comes.
type player struct {
	a     *agent
	moves []string
}

// loop is an agent's whole game through the seat's tools: wait_turn, then
// game_state and play on its turn, sign_result once the game is over, until
// the result is final. It returns the first thing that went wrong.
func (p *player) loop(matchID string) error {
	waits := 0
	for {
		waits++
		if waits > 40 {
			return fmt.Errorf("%s: too many waits", p.a.name)
		}
		res, err := p.a.try("wait_turn", map[string]any{"match": matchID, "timeout_seconds": 60}, fmt.Sprintf("%s-%d", p.a.name, waits))
		if err != nil {
			return err
		}
		if res.IsError {
			return fmt.Errorf("%s: wait_turn refused: %s", p.a.name, text(res))
		}
		woke := decodeAny[seat.Woke](res)
		switch woke.Reason {
		case seat.WakeMyTurn:
			if err := p.turn(matchID); err != nil {
				return err
			}
		case seat.WakeGameOver:
			res, err := p.a.try("sign_result", map[string]any{"match": matchID}, nil)
			if err != nil {
				return err
			}
			if res.IsError {
				return fmt.Errorf("%s: sign_result refused: %s", p.a.name, text(res))
			}
		case seat.WakeFinal:
			return nil
		default:
			return fmt.Errorf("%s: wait_turn woke for %q", p.a.name, woke.Reason)
		}
	}
}

func (p *player) turn(matchID string) error {
	res, err := p.a.try("game_state", map[string]any{"match": matchID}, nil)
	if err != nil {
		return err
	}
	st := decodeAny[seat.Status](res)
	if !st.MyTurn {
		return fmt.Errorf("%s: woke for my turn but game_state says it is not (to_move %+v)", p.a.name, st.ToMove)
	}
	if len(p.moves) == 0 {
		return fmt.Errorf("%s: my turn at ply %d but no move left", p.a.name, st.Ply)
	}
	mv := p.moves[0]
	p.moves = p.moves[1:]
	if !slices.ContainsFunc(st.LegalMoves, func(l seat.LegalMove) bool { return l.Move() == mv }) {
		return fmt.Errorf("%s: %s is not among the legal moves %v", p.a.name, mv, st.LegalMoves)
	}
	res, err = p.a.try("play", map[string]any{"match": matchID, "move": mv}, nil)
	if err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("%s: play %s refused: %s", p.a.name, mv, text(res))
	}
	rep := decodeAny[seat.Reply](res)
	if rep.Ply != st.Ply || rep.Move != mv || rep.Status == nil || rep.Status.Plies != st.Ply {
		return fmt.Errorf("%s: play %s answered ply %d move %q, want ply %d", p.a.name, mv, rep.Ply, rep.Move, st.Ply)
	}
	return nil
}

// playOut runs both players at once, as two agents would, and waits for both.
func playOut(t *testing.T, matchID string, ps ...*player) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, len(ps))
	for i, p := range ps {
		wg.Go(func() { errs[i] = p.loop(matchID) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
}

// TestChessToMate: two `vesper mcp` processes play fool's mate on an
// embedded relay with nothing but the tools (challenge, open_challenges,
// accept, then wait_turn, game_state, play and sign_result), and the result
// is final by both signatures. The relay then holds exactly the eight events
// of the match.
func TestChessToMate(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	white := startAgent(t, r.URL(), "mcp-white")
	black := startAgent(t, r.URL(), "mcp-black")

	ch := ok[seat.Reply](white, "challenge", map[string]any{"game": "chess", "invite": nostr.Npub(black.pk)})
	if len(ch.Match) != 64 || ch.Status == nil || ch.Status.MyColor != "white" {
		t.Fatalf("challenge answered %+v", ch)
	}
	open := ok[seat.OpenReply](black, "open_challenges", map[string]any{"game": "chess", "for_me": true})
	if len(open.Open) != 1 || open.Open[0].Match != ch.Match {
		t.Fatalf("open_challenges for black = %+v, want the one challenge %s", open.Open, ch.Match)
	}
	games := ok[seat.GamesReply](black, "my_games", map[string]any{})
	if len(games.Invitations) != 1 || games.Invitations[0].Match != ch.Match {
		t.Fatalf("my_games invitations for black = %+v", games.Invitations)
	}
	acc := ok[seat.Reply](black, "accept", map[string]any{"match": ch.Match})
	if acc.Status == nil || acc.Status.MyColor != "black" || acc.Status.MyTurn {
		t.Fatalf("accept answered %+v", acc.Status)
	}

	playOut(t, ch.Match,
		&player{a: white, moves: []string{"f2f3", "g2g4"}},
		&player{a: black, moves: []string{"e7e5", "d8h4"}})

	for _, a := range []*agent{white, black} {
		st := ok[seat.Status](a, "game_state", map[string]any{"match": ch.Match})
		if !st.Final || st.FinalBy == nil || *st.FinalBy != "signatures" || st.Result == nil || *st.Result != "second" ||
			st.Reason == nil || *st.Reason != "checkmate" || st.Plies != 4 {
			t.Errorf("%s: final state %+v", a.name, st.Summary)
		}
		if st.FEN != "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3" {
			t.Errorf("%s: fen %q", a.name, st.FEN)
		}
		g := ok[seat.GamesReply](a, "my_games", map[string]any{})
		if len(g.Games) != 1 || g.Games[0].Match != ch.Match || !g.Games[0].Final {
			t.Errorf("%s: my_games = %+v", a.name, g.Games)
		}
	}
	if n := r.Count(); n != 8 {
		t.Errorf("relay holds %d events, want 8 (challenge, accept, 4 moves, 2 signatures)", n)
	}
	// Black's first wait began while White was to move: the server said so.
	if black.progress.Load() == 0 {
		t.Errorf("no progress notification reached black's client while it waited")
	}
}

// TestGomokuToFive: the same with gomoku, the challenge open to anyone:
// X makes five in a row at ply 9 and both sign.
func TestGomokuToFive(t *testing.T) {
	testkit.QuickLoopSkips(t)
	t.Parallel()
	r := startRelay(t)
	x := startAgent(t, r.URL(), "mcp-x")
	o := startAgent(t, r.URL(), "mcp-o")

	ch := ok[seat.Reply](x, "challenge", map[string]any{"game": "gomoku"})
	open := ok[seat.OpenReply](o, "open_challenges", map[string]any{"game": "gomoku"})
	if len(open.Open) != 1 || open.Open[0].Match != ch.Match || open.Open[0].Invitee != nil {
		t.Fatalf("open_challenges = %+v", open.Open)
	}
	if chess := ok[seat.OpenReply](o, "open_challenges", map[string]any{"game": "chess"}); len(chess.Open) != 0 {
		t.Errorf("open_challenges game=chess lists %+v", chess.Open)
	}
	ok[seat.Reply](o, "accept", map[string]any{"match": ch.Match})

	playOut(t, ch.Match,
		&player{a: x, moves: []string{"h8", "h9", "h10", "h11", "h12"}},
		&player{a: o, moves: []string{"a1", "a2", "a3", "a4"}})

	st := ok[seat.Status](o, "game_state", map[string]any{"match": ch.Match})
	if !st.Final || st.Result == nil || *st.Result != "first" || st.Reason == nil || *st.Reason != "five_in_a_row" || st.Plies != 9 || st.MyColor != "white" {
		t.Errorf("final state %+v (my_color %q)", st.Summary, st.MyColor)
	}
	if n := r.Count(); n != 13 {
		t.Errorf("relay holds %d events, want 13 (challenge, accept, 9 moves, 2 signatures)", n)
	}
}

package play_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/internal/testkit/playtest"
	"vesper/match"
	"vesper/match/chessjs"
	"vesper/nostr"
	"vesper/play"
)

// TestAdjudicate: material by Q 9, R 5, B 3, N 3, P 1; a lead of 2 wins,
// 1 does not; gomoku is a draw.
func TestAdjudicate(t *testing.T) {
	for _, tc := range []struct{ fen, want string }{
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", match.Draw},
		{"rnbqkbnr/pppppp2/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", match.First},   // two pawns up
		{"rnbqkbnr/ppppppp1/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", match.Draw},   // one pawn up
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR b KQkq - 0 1", match.Second}, // a queen down
		{"4k3/8/8/8/8/8/8/R3K3 w - - 0 1", match.First},
	} {
		if got, why := play.Adjudicate(nostr.GameChess, tc.fen); got != tc.want || !strings.HasPrefix(why, play.PlyCapTermination) {
			t.Errorf("%s: %s (%s), want %s", tc.fen, got, why, tc.want)
		}
	}
	if got, _ := play.Adjudicate(nostr.GameGomoku, ""); got != match.Draw {
		t.Errorf("gomoku: %s", got)
	}
}

func capRunner(t *testing.T, url string, key nostr.SecretKey, cap int) string {
	t.Helper()
	dir := t.TempDir()
	playtest.Run(t, url, key, play.Config{Dir: dir, PlyCap: cap,
		NewMover: func(string) play.Mover { return &play.Builtin{Limits: play.Limits{Nodes: 200}} }})
	return dir
}

// TestPlyCapBothSign: two runners with a cap of 6 plies; at the cap each
// signs the result its own computation gives on the same position, which
// makes it final by signatures (an agreed result), and the record and the
// PGN of each say "ply cap".
func TestPlyCapBothSign(t *testing.T) {
	url := startRelay(t)
	a, b := testkit.Key("cap-white"), testkit.Key("cap-black")
	now := time.Now().Unix()
	m := testkit.NewMatch(a, b, "chess", b.PublicKey(), now-10)
	m.Accept(now - 9)
	publish(t, url, m.Events...)
	const cap = 6
	dirs := []string{capRunner(t, url, a, cap), capRunner(t, url, b, cap)}
	eventually(t, "the capped game final", func() bool { return fold(t, url, m.ID).Final })
	st := fold(t, url, m.ID)
	if st.Plies() != cap || st.FinalBy != match.FinalBySignatures || st.Reason != match.ReasonAgreement {
		t.Fatalf("%d plies, final by %s, reason %s", st.Plies(), st.FinalBy, st.Reason)
	}
	g := chessjs.NewGame()
	for _, mv := range st.Moves {
		if _, err := g.Move(mv); err != nil {
			t.Fatal(err)
		}
	}
	if want, _ := play.Adjudicate(nostr.GameChess, g.FEN()); st.Result != want {
		t.Fatalf("result %s, the material says %s", st.Result, want)
	}
	for _, dir := range dirs {
		eventually(t, "the final record", func() bool {
			b, _ := os.ReadFile(filepath.Join(dir, "games", m.ID+".pgn"))
			return len(b) > 0
		})
		pgn, _ := os.ReadFile(filepath.Join(dir, "games", m.ID+".pgn"))
		rec, _ := os.ReadFile(filepath.Join(dir, "games", m.ID+".jsonl"))
		if !strings.Contains(string(pgn), `[Termination "ply cap"]`) || !strings.Contains(string(rec), `"action":"ply_cap"`) || !strings.Contains(string(rec), `"type":"final"`) {
			t.Fatalf("record or PGN does not say ply cap:\n%s\n%s", pgn, rec)
		}
	}
}

// illegalTalker always answers an illegal move, each answer with its
// usage: every attempt is refused.
type illegalTalker struct{}

func (illegalTalker) Choose(context.Context, play.Request) play.Choice {
	return play.Choice{Answer: play.Answer{Move: "e1e8", Usage: []byte(`{"output_tokens":10,"input_tokens":100}`)}}
}
func (illegalTalker) Close() error { return nil }

// TestRandomFallbackTagged: after every attempt is refused the random
// legal move is published with ["fallback","random"], attempts counting
// the refused answers and usage summing their calls.
func TestRandomFallbackTagged(t *testing.T) {
	url := startRelay(t)
	me, opp := testkit.Key("fb-runner"), testkit.Key("fb-opponent")
	m := acceptedGame(t, url, nostr.GameChess, me, opp)
	playtest.Run(t, url, me, play.Config{Dir: t.TempDir(), Retries: 2,
		NewMover: func(string) play.Mover { return illegalTalker{} }})
	eventually(t, "the fallback move", func() bool { return fold(t, url, m.ID).Plies() == 1 })
	st := fold(t, url, m.ID)
	mv := eventOf(st, st.MoveEvents[0])
	if f, err := nostr.Fallback(mv); f != nostr.FallbackRandom || err != nil {
		t.Fatalf("fallback %q %v", f, err)
	}
	if n, ok, _ := nostr.Attempts(mv); !ok || n != 3 {
		t.Fatalf("attempts %d %v, want 3", n, ok)
	}
	if u, ok, _ := nostr.ReadUsage(mv); !ok || u.JSON() != `{"input_tokens":300,"output_tokens":30}` {
		t.Fatalf("usage %s, want the three calls summed", u.JSON())
	}
}

// TestPlyCapSignsOnlyItsOwnResult: at the cap the opponent has signed a
// win for itself on an even position; the runner signs the draw its own
// computation gives, never the opponent's result, so nothing is final.
func TestPlyCapSignsOnlyItsOwnResult(t *testing.T) {
	url := startRelay(t)
	me, opp := testkit.Key("cap-own"), testkit.Key("cap-greedy")
	now := time.Now().Unix()
	m := testkit.NewMatch(me, opp, "chess", opp.PublicKey(), now-20)
	m.Accept(now - 19)
	at := m.Play([]string{"e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"}, now-18, 1)
	st, err := match.Fold(m.ID, m.Events, nil)
	if err != nil {
		t.Fatal(err)
	}
	m.Result(opp, nostr.Result{Result: match.Second, Reason: string(match.ReasonAgreement), Plies: 6, FinalHash: st.FinalHash()}, at+1)
	publish(t, url, m.Events...)
	capRunner(t, url, me, 6)
	eventually(t, "the runner's signature", func() bool {
		_, ok := fold(t, url, m.ID).Sigs[match.First]
		return ok
	})
	st = fold(t, url, m.ID)
	if sig := st.Sigs[match.First]; sig.Result.Result != match.Draw || st.Final || st.Plies() != 6 {
		t.Fatalf("the runner signed %s (final %v, %d plies), want its own draw and nothing final", sig.Result.Result, st.Final, st.Plies())
	}
}

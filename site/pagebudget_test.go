package site

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"vesper/analysis"
	"vesper/internal/testkit"
	"vesper/match"
	"vesper/match/chessjs"
	"vesper/nostr"
)

// The most bytes the page of budgetGame may take, with talk on every move
// and without. Issue 37 asks for a median game page under 60 KB at 10,000
// matches; it was 88 KB at 2,000, a board per ply half of it. budgetGame
// is twice as long as the median game, so its page is larger: 359,399
// bytes with talk and 217,611 without when every ply had its board, and
// 274,678 and 133,398 with one board for the replay; 258,182 and 116,912
// with the shared CSS in style.css and game.css and a shorter events table
// (short ids, no content where the move shows it, plain times); 220,965
// and 92,351 with the events' rows named by a short prefix of the id
// (every link to them and the talk rows too) and styled by column, a step
// without the links and counts every step repeated, and a rule per ply
// less. The budgets leave room for a few sentences more, not for the full
// ids back in the rows' names (about 17 KB with talk here), nor for the
// start and end links back in every step (about 4.6 KB), nor for a board
// per ply (about 1.1 KB a chess ply, 88 KB for this game).
const (
	gamePageBudget       = 224_000
	gamePageBudgetNoTalk = 95_000
)

// budgetGame is a representative long chess game: 80 plies (40 moves) of a
// seeded random legal game, each move with a comment, reasoning committed
// and revealed after the game, self-reported attempts and usage, ended by
// resignation, signed by both players and analysed.
func budgetGame(t *testing.T, withTalk bool) Input {
	t.Helper()
	rng := rand.New(rand.NewPCG(37, 60))
	g := &talkGame{m: testkit.NewMatch(alice, bob, nostr.GameChess, "", t0)}
	g.m.Accept(t0 + 10)
	board := chessjs.NewGame()
	var moves []string
	for len(moves) < 80 && !board.Outcome().Over {
		legal := board.LegalMoves()
		mv := legal[rng.IntN(len(legal))]
		board.Move(mv.UCI())
		moves = append(moves, mv.UCI())
	}
	if len(moves) < 80 {
		t.Fatalf("the seeded game ended after %d plies", len(moves))
	}
	at := t0 + 20
	for i, mv := range moves {
		k := alice
		if i%2 == 1 {
			k = bob
		}
		n, in := i%3, float64(900+10*i)
		salt := nostr.NewSalt()
		text := "Ply " + strconv.Itoa(i+1) + ": I weigh the centre, my king's safety and the open file, and play " + mv + " because it keeps the pieces active and the pawns together."
		talk := nostr.Talk{Comment: "ply " + strconv.Itoa(i+1) + ", a steady move: " + mv, Reasoning: nostr.ReasoningHash(salt, text),
			Attempts: &n, Usage: &nostr.Usage{InputTokens: &in}}
		if !withTalk {
			talk = nostr.Talk{}
		}
		ev := g.m.Add(k, nostr.WithTalk(nostr.NewMove(g.m.ID, i+1, mv, at), talk))
		g.moves, g.salts, g.texts = append(g.moves, ev), append(g.salts, salt), append(g.texts, text)
		at += 30 + int64(i%7)*11
	}
	g.m.Move(alice, len(moves)+1, "resign", at)
	s := foldT(t, g.m)
	g.m.Result(alice, result(s, "second", "resignation"), at+10)
	g.m.Result(bob, result(s, "second", "resignation"), at+20)
	var even, odd []int
	for i := range moves {
		if i%2 == 0 {
			even = append(even, i)
		} else {
			odd = append(odd, i)
		}
	}
	if withTalk {
		g.reveal(alice, at+30, "", even...)
		g.reveal(bob, at+31, "", odd...)
	}
	s = foldT(t, g.m)
	plies := make([]testPly, s.Plies())
	e := 0
	for j := range plies {
		e += (j*37)%61 - 30
		plies[j].after = cp(e)
	}
	in := Input{States: []*match.State{s}, Now: at + 86400, Daemon: daemon.PublicKey(), ListAll: true,
		Analyses: map[string]*analysis.Game{s.Match: testAnalysisOf(s, s.Moves, cp(20), plies)},
		Profiles: map[string]Profile{
			alice.PublicKey(): ParseProfile(`{"name":"Alice","bot":true,"agent":{"model":"model-a","provider":"lab"}}`),
			bob.PublicKey():   ParseProfile(`{"name":"Bob","bot":true,"agent":{"model":"model-b"}}`),
		}}
	in.RatingGames = RatingGames(in.States)
	return in
}

// A long game stays within its budget, with talk on every move and
// without: a board per ply, or anything else as large, coming back fails
// here. Bytes, not time: the same input gives the same page size on any
// machine.
func TestGamePageBudget(t *testing.T) {
	for _, c := range []struct {
		talk   bool
		budget int
	}{{true, gamePageBudget}, {false, gamePageBudgetNoTalk}} {
		in := budgetGame(t, c.talk)
		s := in.States[0]
		out, _ := buildFixture(t, in)
		page := readSite(t, out, "m/"+s.Match+".html")
		// The game is what it says: 80 counted plies, each with its talk
		// in the replay or none, and analysed.
		talks := strings.Count(page, `<div class="steptalk">`)
		if s.Plies() != 80 || (talks == 80) != c.talk || !strings.Contains(page, `id="analysis"`) {
			t.Fatalf("%d plies, %d steps with talk, analysis %v", s.Plies(), talks, strings.Contains(page, `id="analysis"`))
		}
		t.Logf("the page of an 80-ply chess game, talk %v: %d bytes (budget %d)", c.talk, len(page), c.budget)
		if len(page) > c.budget {
			t.Errorf("the page of an 80-ply chess game (talk %v) is %d bytes, over its budget of %d", c.talk, len(page), c.budget)
		}
	}
}

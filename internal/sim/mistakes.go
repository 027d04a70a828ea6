// The mistakes the generator adds: events that must not count.

package sim

import (
	"vesper/match"
	"vesper/nostr"
)

// illegal is a move string the current position refuses.
func (g *gen) illegal() string {
	cands := []string{"--", "Ke9", "e2e5", "O-O-O-O", "Qxx", "nf3", " e4", "E4", "i9"}
	if g.m.Game == nostr.GameGomoku {
		cands = []string{"p16", "h08", "z1", "h 8", "a0", "--"}
		if ms := g.board.Moves(); len(ms) > 0 {
			cands = append(cands, ms[g.r.IntN(len(ms))]) // occupied
		}
	}
	for range 8 {
		s := cands[g.r.IntN(len(cands))]
		if _, err := g.board.Clone().Play(s); err != nil {
			return s
		}
	}
	return "--"
}

// invalid posts a challenge that makes no match, then plays on it anyway.
func (g *gen) invalid() {
	g.m.Plan = "invalid"
	t := g.clk.advance(1)
	var ch *nostr.Event
	switch g.r.IntN(3) {
	case 0:
		ch = nostr.NewChallenge(g.m.Game, g.pubs[g.a], t) // invites its own author
	case 1:
		ch = nostr.NewChallenge("checkers", "", t)
	default:
		ch = nostr.NewChallenge(g.m.Game, "", t)
		ch.Tags = nostr.Tags{{nostr.TopicTag, "other-games"}}
	}
	g.sign(g.a, ch)
	g.m.ID = ch.ID
	g.m.Second = g.b
	g.accept(g.b, g.quick())
	if mv, ok := g.choose(); ok {
		g.move(g.a, 1, mv, g.quick())
	}
}

// noiseBefore posts events that must not count, stamped before the move.
func (g *gen) noiseBefore(ply, mover, waiter int) {
	switch p := g.r.Float64(); {
	case p < 0.02:
		g.move(mover, ply, g.illegal(), g.quick())
	case p < 0.03:
		if mv, ok := g.choose(); ok {
			g.move(waiter, ply, mv, g.quick()) // not its turn
		}
	case p < 0.04:
		if mv, ok := g.choose(); ok {
			g.move(mover, ply+2, mv, g.quick()) // wrong ply
		}
	case p < 0.045:
		if mv, ok := g.choose(); ok {
			g.move(g.other(g.a, g.b), ply, mv, g.quick()) // not a player
		}
	case p < 0.047:
		g.sign(g.players2(mover), nostr.NewRequest(g.m.ID, "nothing to rule on yet", g.clk.advance(g.quick())))
	case p < 0.049:
		g.sign(g.other(g.a, g.b), nostr.NewRequest(g.m.ID, "a spectator's opinion", g.clk.advance(g.quick()))) // not a player
	case p < 0.051:
		r := nostr.Result{Result: opposite(roleOf(ply)), Reason: "timeout", Plies: ply - 1, FinalHash: g.board.Hash()}
		g.result(waiter, r, g.quick()) // the clock has not run out
	}
}

// players2 picks either player.
func (g *gen) players2(mover int) int {
	if g.chance(0.5) {
		return mover
	}
	if mover == g.a {
		return g.b
	}
	return g.a
}

// noiseAfter posts a second move for a ply already counted: the same move
// signed again (a retry) or another one (a change of mind).
func (g *gen) noiseAfter(ply, mover int, content string, before match.Game) {
	switch p := g.r.Float64(); {
	case p < 0.01:
		g.move(mover, ply, content, g.quick())
	case p < 0.015:
		saved := g.board
		g.board = before
		if mv, ok := g.choose(); ok {
			g.move(mover, ply, mv, g.quick())
		}
		g.board = saved
	}
}

// future: a legal move stamped days after End, as from a skewed clock. It
// is the match's last event and never counts (rule 5), since it is
// published around End.
func (g *gen) future() {
	if g.cfg.Live <= 0 || !g.chance(0.15) {
		return
	}
	s := g.fold()
	if s == nil || s.Over || !s.Accepted {
		return
	}
	g.sync(s)
	mv, ok := g.choose()
	if !ok {
		return
	}
	mover, _ := g.players(s.Plies() + 1)
	t := g.cfg.End + 3*86400 + g.r.Int64N(86400)
	ev := g.sign(mover, nostr.NewMove(g.m.ID, s.Plies()+1, mv, t))
	g.m.Future = append(g.m.Future, ev.ID)
	g.seen[ev.ID] = g.cfg.End
}

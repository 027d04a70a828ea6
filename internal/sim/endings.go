package sim

import (
	"vesper/match"
	"vesper/nostr"
)

// end ends a game still running after play (s is its fold) the way
// ending says, or records one that ended by rule, then posts the results.
func (g *gen) end(s *match.State, ending string) {
	if s.Over {
		g.m.Plan = "rule"
		g.results()
		return
	}
	switch ending {
	case "agreement":
		g.agree(s)
		return
	case "timeout":
		g.timeout(s)
		g.future()
		return
	case "abandoned":
		g.m.Plan = "abandoned"
		g.future()
		return
	case "dispute":
		g.dispute(s)
		return
	}
	g.m.Plan = "resign"
	who := g.a
	if g.chance(0.5) {
		who = g.b
	}
	g.move(who, s.Plies()+1, "resign", g.moveGap())
	g.results()
}

func pickEnding(p float64) string {
	switch {
	case p < 0.55:
		return "resign" // or an end by rule, whichever comes first
	case p < 0.67:
		return "agreement"
	case p < 0.85:
		return "timeout"
	case p < 0.94:
		return "abandoned"
	}
	return "dispute"
}

// results: the players sign the result of a game over by rule or
// resignation, mostly cleanly; otherwise arbitration finishes it.
func (g *gen) results() {
	s := g.fold()
	if s == nil || !s.Over {
		return
	}
	res := s.Computed()
	first, second := g.a, g.b
	if g.chance(0.5) {
		first, second = second, first
	}
	switch p := g.r.Float64(); {
	case p < 0.70:
		g.result(first, res, g.quick())
		g.result(second, res, g.quick())
		if g.chance(0.1) {
			g.result(first, res, g.quick()) // signed again: already final
		}
	case p < 0.80:
		bad := res
		bad.Plies++
		g.result(first, bad, g.quick()) // inconsistent: ignored
		g.result(first, res, g.quick())
		g.result(second, res, g.quick())
	case p < 0.95:
		g.result(first, res, g.quick())
		// The other never signs; after the deadline the signer asks for a
		// ruling, from another agent or, left alone, from the daemon.
		g.sign(first, nostr.NewRequest(g.m.ID, "my opponent does not sign", g.clk.advance(match.MoveClock+g.moveGap())))
		if p < 0.88 {
			g.ruling()
		} else {
			g.m.Plan += "/daemon"
		}
	default:
		g.result(first, res, g.quick())
	}
	if g.chance(0.05) {
		if mv, ok := g.choose(); ok {
			g.move(g.a, s.Plies()+1, mv, g.quick()) // after the end
		}
	}
}

// ruling: an agent rules on a request, sometimes wrongly first.
func (g *gen) ruling() {
	s := g.fold()
	if s == nil {
		return
	}
	arbiter := g.other(g.a, g.b)
	t := g.clk.advance(g.quick())
	want, ok := s.CorrectRuling(t)
	if !ok {
		return // nothing can be correct yet (time compressed after End)
	}
	if g.chance(0.3) {
		wrong := want
		wrong.Result = opposite(want.Result)
		if want.Result == match.Draw {
			wrong.Result = match.First
		}
		g.sign(arbiter, nostr.NewRuling(g.m.ID, wrong, t))
		t = g.clk.advance(g.quick())
	}
	g.sign(arbiter, nostr.NewRuling(g.m.ID, want, t))
}

// agree: the players sign a result of a game in progress.
func (g *gen) agree(s *match.State) {
	g.m.Plan = "agreement"
	r := nostr.Result{Result: match.Draw, Reason: "agreement", Plies: s.Plies(), FinalHash: s.FinalHash()}
	if g.chance(0.3) {
		r.Result = []string{match.First, match.Second}[g.r.IntN(2)]
	}
	first, second := g.a, g.b
	if g.chance(0.5) {
		first, second = second, first
	}
	g.result(first, r, g.moveGap())
	g.result(second, r, g.quick())
}

// timeout: the player to move goes silent; the other claims, or asks for
// a ruling. Some claims come too early, some late moves come after all.
func (g *gen) timeout(s *match.State) {
	silent, other := g.a, g.b
	if s.ToMove() == match.Second {
		silent, other = g.b, g.a
	}
	claim := nostr.Result{Result: opposite(s.ToMove()), Reason: "timeout", Plies: s.Plies(), FinalHash: s.FinalHash()}
	if g.chance(0.2) {
		g.result(other, claim, g.quick()) // premature
	}
	g.clk.advance(match.MoveClock + g.moveGap())
	if g.chance(0.25) {
		if mv, ok := g.choose(); ok {
			g.move(silent, s.Plies()+1, mv, g.quick()) // too late to count
			if s = g.fold(); s == nil {
				return
			}
			g.sync(s)
			claim.Plies, claim.FinalHash = s.Plies(), s.FinalHash()
			claim.Result = opposite(s.ToMove())
			if s.Over {
				return
			}
			if s.ToMove() == match.First {
				silent, other = g.a, g.b
			} else {
				silent, other = g.b, g.a
			}
		}
	}
	switch p := g.r.Float64(); {
	case p < 0.6:
		g.m.Plan = "timeout-claim"
		g.result(other, claim, g.quick())
		if g.chance(0.3) {
			g.result(silent, claim, g.quick()) // conceding, after the result is final
		}
	case p < 0.8:
		g.m.Plan = "timeout-ruling"
		g.sign(other, nostr.NewRequest(g.m.ID, "no move for a day", g.clk.advance(g.quick())))
		g.ruling()
	default:
		g.m.Plan = "timeout-daemon"
		g.sign(other, nostr.NewRequest(g.m.ID, "no move for a day", g.clk.advance(g.quick())))
	}
}

// dispute: each player signs a win for itself; one asks for a ruling,
// which can only come once the pending clock has run out.
func (g *gen) dispute(s *match.State) {
	g.m.Plan = "dispute"
	base := nostr.Result{Reason: "agreement", Plies: s.Plies(), FinalHash: s.FinalHash()}
	ra, rb := base, base
	ra.Result, rb.Result = match.First, match.Second
	g.result(g.a, ra, g.moveGap())
	g.result(g.b, rb, g.quick())
	g.sign(g.players2(g.a), nostr.NewRequest(g.m.ID, "we disagree", g.clk.advance(g.quick())))
	if g.chance(0.7) {
		g.clk.advance(match.MoveClock + g.moveGap())
		g.ruling()
	} else {
		g.m.Plan += "/daemon"
	}
}

package arbiter

import (
	"math"
	"sort"
	"strconv"

	"vesper/engine"
	"vesper/match"
)

// Verdict is what the house does with one challenge it could accept, at
// one pass: accept it now, or not (Why says why, in words a page can
// show).
type Verdict struct {
	Accept bool
	Why    string // "" when Accept
	// Wait is set when all that keeps the house from accepting is that
	// the challenge is open to anyone and younger than AcceptAfter: when
	// it decides again.
	Wait int64
}

// The reasons of a Verdict that does not accept.
const (
	WhyNoPlay   = "the house does not play (--no-play)"
	WhyWait     = "the house waits for someone else to accept first"
	WhyFuture   = "stamped in the future: the house waits until then"
	WhyOpponent = "the house already plays this account"
	WhyGame     = "the house's engine does not play this game"
)

// whyFull says the house plays its cap of games already.
func whyFull(max int) string {
	return "the house already plays " + strconv.Itoa(max) + " games at once, its limit"
}

// HousePlan is the verdict, by match id, of every challenge open at now
// that the house could accept (not its own; open to anyone, or inviting
// it): exactly what Decide's accepts do, with the cap on games at once,
// one game per opponent and cfg.Play, so that a page says what the house
// will do rather than what section 3 allows it (issue 26, item 8).
func HousePlan(states []*match.State, self string, cfg Config, now int64) map[string]Verdict {
	out := map[string]Verdict{}
	if self == "" {
		return out
	}
	for _, p := range plan(states, self, cfg, now) {
		out[p.s.Match] = p.v
	}
	return out
}

// planned is one challenge the house could accept, with its verdict.
type planned struct {
	s *match.State
	v Verdict
}

// plan gives every challenge the house could accept its verdict: those
// inviting self at once, open ones after AcceptAfter, oldest first (a
// waiting challenge is not starved by newer ones), at most MaxGames in
// progress and one per opponent.
func plan(states []*match.State, self string, cfg Config, now int64) []planned {
	active := 0
	opponents := map[string]bool{}
	for _, s := range states {
		if s.Accepted && !s.Over && s.Role(self) != "" {
			active++
			opponents[s.First] = true
			opponents[s.Second] = true
		}
	}
	var cands []planned
	for _, s := range states {
		if s.Accepted || s.First == self || s.Status(now) != match.StatusOpen {
			continue
		}
		if s.Invitee == "" || s.Invitee == self {
			cands = append(cands, planned{s: s})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].s.CreatedAt != cands[j].s.CreatedAt {
			return cands[i].s.CreatedAt < cands[j].s.CreatedAt
		}
		return cands[i].s.Match < cands[j].s.Match
	})
	for i := range cands {
		s, v := cands[i].s, &cands[i].v
		switch {
		case !cfg.Play:
			v.Why = WhyNoPlay
		case !engine.Plays(s.Kind):
			v.Why = WhyGame
		// Waits are compared as differences from created_at, so a wait set
		// to the largest int64 ("never") cannot wrap into the past.
		case s.CreatedAt-now > cfg.maxSkew():
			v.Why = WhyFuture
		case s.Invitee == "" && now-s.CreatedAt < cfg.AcceptAfter:
			v.Why, v.Wait = WhyWait, math.MaxInt64
			if s.CreatedAt <= math.MaxInt64-cfg.AcceptAfter {
				v.Wait = s.CreatedAt + cfg.AcceptAfter
			}
		case active >= cfg.MaxGames:
			v.Why = whyFull(cfg.MaxGames)
		case opponents[s.First]:
			v.Why = WhyOpponent
		default:
			v.Accept = true
			active++
			opponents[s.First] = true
		}
	}
	return cands
}

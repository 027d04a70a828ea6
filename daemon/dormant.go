package daemon

import (
	"vesper/match"
	"vesper/store"
)

// Dormant games (issue 28). On a public network many games are abandoned:
// a player stops mid-game, its clock runs out, and nobody claims the
// timeout or asks for a ruling (only the players may). Such a game is
// never final and never expires; kept in memory and re-folded at every
// start, it would make a daemon's costs follow every game ever abandoned
// rather than the live ones. A game whose pending clock ran out more than
// Limits.DormantAfter ago, with no event since, is dormant: it leaves
// memory like a final match and a start does not fold it. An event of it
// re-folds it from the store (ingest treats it like any match it does not
// keep). Dormancy is this daemon's memory policy, never a result: the
// fold, the summary's status and every duty are the same either way.

// The same holds of a game that ended by rule or resignation and that
// one player never signed, nor anyone asked to arbitrate, once its
// arbitration deadline is long past: the site lists it as finished (not
// final), and nothing is due from a daemon until an event comes.

// idleSince is when s last saw anything happen, for a match that may go
// dormant: the later of the fold's deadline (the pending clock's run-out,
// or the end + 24 hours for a game over) and its last event in fold
// order. It is 0 for every match that never goes dormant: not accepted
// (an open challenge expires by itself) or final.
func idleSince(s *match.State) int64 {
	if s.Final || !s.Accepted {
		return 0
	}
	return max(s.Deadline(), s.LastFolded())
}

// abandonedSince is idleSince for the games the site may show as
// abandoned: those with no request (someone who asks for a ruling has not
// abandoned the game). The site shows only games in progress so; one over
// stays in the archive as what it is.
func abandonedSince(s *match.State) int64 {
	if len(s.Requests) > 0 {
		return 0
	}
	return idleSince(s)
}

// dormancy is what the store needs to tell the dormant matches at now:
// idle since before now minus the grace, not the house's own games (it
// claims a timeout as soon as the opponent's clock runs out, and signs a
// result at the end, which it must not miss after a long stop), and, when
// it arbitrates, no match with a request (a request that came while it
// was stopped must still get its ruling).
func (n *Daemon) dormancy(now int64) store.Dormancy {
	if n.lim.DormantAfter <= 0 {
		return store.Dormancy{} // nothing goes dormant
	}
	return store.Dormancy{Before: now - n.lim.DormantAfter, Self: n.self, Arbiter: n.self != "" && n.cfg.Arbitrate}
}

// dormant says whether s is dormant at now: the comparison the store
// makes of a stored summary (store.Dormancy), made of a state.
func (n *Daemon) dormant(s *match.State, now int64) bool {
	d := n.dormancy(now)
	idle := idleSince(s)
	return idle > 0 && idle < d.Before && s.Role(n.self) == "" && !(d.Arbiter && len(s.Requests) > 0)
}

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

// idleSince is when s last saw anything happen, for a game that may go
// dormant: the later of its pending clock's run-out (the fold's deadline)
// and its last event in fold order. It is 0 for every match that never
// goes dormant: one that is not in progress (not accepted, over, final)
// and one with a valid arbitration request, which a ruling (the house's
// duty, or any arbiter's) is still to answer.
func idleSince(s *match.State) int64 {
	if s.Final || s.Over || !s.Accepted || len(s.Requests) > 0 {
		return 0
	}
	return max(s.Deadline(), s.LastFolded())
}

// dormancy is what the store needs to tell the dormant matches at now:
// idle since before now minus the grace, and not the house's own games
// (it claims a timeout as soon as the opponent's clock runs out, which it
// must not miss after a long stop).
func (n *Daemon) dormancy(now int64) store.Dormancy {
	if n.lim.DormantAfter <= 0 {
		return store.Dormancy{} // nothing goes dormant
	}
	return store.Dormancy{Before: now - n.lim.DormantAfter, Self: n.self}
}

// dormant says whether s is dormant at now: the same comparison the store
// makes of a stored summary (store.Dormancy), made of a state.
func (n *Daemon) dormant(s *match.State, now int64) bool {
	d := n.dormancy(now)
	idle := idleSince(s)
	return idle > 0 && idle < d.Before && s.Role(n.self) == ""
}

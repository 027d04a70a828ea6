package match

import "math"

// Clock is what the time rules of PROTOCOL.md section 2 read of a match:
// enough to say, at any time, its status, when the pending ply's clock
// started, its deadline and whether that clock has run out. The fold asks
// these methods and nothing else, so they are the one home of those rules.
// A State gives its own (State.Clock); a reader that keeps a match in a
// smaller form (the site's cards) keeps these fields and asks the same
// methods rather than spelling a rule again.
type Clock struct {
	CreatedAt int64 // the challenge's created_at
	Accepted  bool
	AcceptAt  int64 // the accept's created_at
	Plies     int   // counted board moves
	LastMove  int64 // created_at of the last counted move (0: none)
	Over      bool
	EndedAt   int64 // created_at of the event that ended the game
}

// Clock is s's clock now.
func (s *State) Clock() Clock {
	c := Clock{CreatedAt: s.CreatedAt, Accepted: s.Accepted, AcceptAt: s.AcceptAt,
		Plies: s.Plies(), Over: s.Over, EndedAt: s.EndedAt}
	if c.Plies > 0 {
		c.LastMove = s.MoveTimes[c.Plies-1]
	}
	return c
}

// ToMove is the role whose turn it is, and whose clock runs while the game
// is in progress: odd plies the first player (section 2, rule 3).
func (c Clock) ToMove() string {
	if c.Plies%2 == 0 {
		return First
	}
	return Second
}

// Expires is the challenge's last second: an accept stamped later does not
// count, and an unaccepted challenge is expired once now is past it
// (section 2, Challenge and Accept).
func (c Clock) Expires() int64 { return later(c.CreatedAt, ChallengeExpiry) }

// Status depends on now only for an unaccepted challenge (section 6).
func (c Clock) Status(now int64) Status {
	switch {
	case c.Over:
		return StatusOver
	case c.Accepted:
		return StatusActive
	case now > c.Expires():
		return StatusExpired
	}
	return StatusOpen
}

// Start is when the clock of the pending ply started: the accept for
// plies 1 and 2, the previous counted move after that (section 2, rule 6).
func (c Clock) Start() int64 {
	if c.Plies < 2 {
		return c.AcceptAt
	}
	return c.LastMove
}

// Deadline is the arbitration deadline: for a game in progress the last
// second of the pending ply's clock, for a game that is over the end + 24
// hours (section 2, Arbitration).
func (c Clock) Deadline() int64 {
	if c.Over {
		return later(c.EndedAt, MoveClock)
	}
	return c.MoveDeadline()
}

// later is t + d for a duration d >= 0, held at the largest int64 rather
// than wrapping. The fold's times are at most nostr.MaxCreatedAt, where no
// sum overflows, but a reader builds a Clock from its own fields; a
// deadline wrapped into the past would let a timeout claim win at once.
func later(t, d int64) int64 {
	if t > math.MaxInt64-d {
		return math.MaxInt64
	}
	return t + d
}

// MoveDeadline is the last second of the pending ply's clock. In a game
// in progress it is the deadline; in a game over by timeout it is when the
// loser's clock ran out, which the claim or ruling that ended the game
// came after, by as long as it took someone to sign one.
func (c Clock) MoveDeadline() int64 { return later(c.Start(), MoveClock) }

// RanOut reports whether the pending ply's clock has run out at t:
// strictly after its last second, where a move is still on time (section
// 2, rule 6 and Results). A move stamped t is then late, and a timeout
// claim or a ruling stamped t may count. No clock runs before the accept
// or after the end.
func (c Clock) RanOut(t int64) bool { return c.Accepted && !c.Over && t > c.Deadline() }

// DeadlinePassed reports whether t is after the arbitration deadline, from
// which a request counts even when the signatures agree (section 2,
// Arbitration). Nothing has a deadline before the accept.
func (c Clock) DeadlinePassed(t int64) bool { return c.Accepted && t > c.Deadline() }

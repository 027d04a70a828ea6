package match

import "vesper/nostr"

// Ignored is an event of the match that the fold did not use, with a
// machine token and a human tail (shown as "token: detail"). Where the
// fold decided by numbers, it also keeps them as values, so that a reader
// words the reason its own way without parsing Detail (which is made from
// the same values); they are zero where they do not apply.
type Ignored struct {
	ID     string
	Token  string
	Detail string
	// Ply and Expected are the event's ply and the one the fold expected
	// (IgnWrongPly).
	Ply, Expected int
	// ClockStart is when the pending ply's clock started (IgnLate,
	// IgnClaimPremature).
	ClockStart int64
	// Deadline is the last second before the event would have counted or
	// after which it no longer did: the pending clock's last second
	// (IgnLate, IgnClaimPremature), the arbitration deadline
	// (IgnRequestInvalid).
	Deadline int64
	at       int64 // the event's created_at, to place a late arrival (Insert)
}

// Reason is the text shown to users: "wrong_ply: expected 3, got 2".
func (i Ignored) Reason() string { return i.Token + ": " + i.Detail }

// Signature is a player's latest result signature that was not ignored.
type Signature struct {
	Event  string
	Result nostr.Result
}

// Request is a valid arbitration request.
type Request struct {
	Event     string
	Author    string
	CreatedAt int64
}

// State is a match after the fold. Fields are read-only to callers.
type State struct {
	Match     string
	Kind      string // "chess" or "gomoku"
	First     string
	Invitee   string // "" for an open challenge
	CreatedAt int64  // the challenge's created_at

	Second      string // "" until accepted
	Accepted    bool
	AcceptAt    int64
	AcceptEvent string

	// Counted board moves: canonical strings, their events and times.
	Moves      []string
	MoveEvents []string
	MoveTimes  []int64

	Over     bool
	Result   string // First, Second or Draw once over
	Reason   Reason
	EndedAt  int64  // created_at of the event that ended the game
	EndEvent string // id of that event

	Final      bool
	FinalBy    FinalBy
	FinalEvent string

	Sigs     map[string]Signature // by role, First or Second
	Requests []Request            // valid arbitration requests, fold order

	Ignored []Ignored
	// LastUsed is the latest created_at of an event the fold used. A new
	// event must be stamped after it: fold order breaks ties in created_at
	// by id, so an event stamped in the same second as the one it follows
	// may sort before it and be ignored for good.
	LastUsed int64
	// Events are every event of the match in fold order, challenge first
	// (nil in a Lean or Compact state).
	Events []*nostr.Event
	// Reveals are the match's kind 4427 events (section 8.2: a g tag
	// naming the match), each once, by (created_at, id). They are carried
	// for match.json and the reveal package and never applied: the fold's
	// results and summary do not depend on them (nil in a Lean or Compact
	// state).
	Reveals []*nostr.Event

	game    Game
	tailAt  int64  // the last event in fold order, after the challenge
	tailID  string // "" while only the challenge is folded
	usedAt  int64  // the last event in fold order that the fold used
	usedID  string // "" while only the challenge is used
	finalAt int64  // created_at of FinalEvent
	ignores int    // events ignored so far, for LastUsed
	held    *nostr.Event
	heldPos int // index in Ignored of the held move's entry
}

// Plies is the number of counted board moves.
func (s *State) Plies() int { return len(s.Moves) }

// Board returns a copy of the current position, to try moves on.
func (s *State) Board() Game { return s.game.Clone() }

// FinalHash is the hash of the current position.
func (s *State) FinalHash() string { return s.game.Hash() }

// ToMove is Clock().ToMove(): the role whose turn it is.
func (s *State) ToMove() string { return s.Clock().ToMove() }

// Player returns the pubkey holding a role.
func (s *State) Player(role string) string {
	if role == First {
		return s.First
	}
	return s.Second
}

// Role returns First or Second for a player's pubkey, "" for anyone else.
func (s *State) Role(pubkey string) string {
	switch {
	case pubkey == s.First:
		return First
	case s.Accepted && pubkey == s.Second:
		return Second
	}
	return ""
}

// ClockStart is Clock().Start(): when the pending ply's clock started.
func (s *State) ClockStart() int64 { return s.Clock().Start() }

// Deadline is Clock().Deadline(): the arbitration deadline.
func (s *State) Deadline() int64 { return s.Clock().Deadline() }

// Status is Clock().Status(now): it depends on now only for an unaccepted
// challenge.
func (s *State) Status(now int64) Status { return s.Clock().Status(now) }

// Computed is the result the fold computes now: the end by rule or
// resignation, or a timeout win when the pending clock ran out at t.
func (s *State) Computed() nostr.Result {
	return nostr.Result{Result: s.Result, Reason: string(s.Reason), Plies: s.Plies(), FinalHash: s.FinalHash()}
}

// HeldMove is the challenger's ply-1 move waiting for an accept, if any.
func (s *State) HeldMove() *nostr.Event { return s.held }

// Stamp is the created_at to give a new event at now: now, or the second
// after the last used event when that is later (see LastUsed).
func (s *State) Stamp(now int64) int64 {
	if now <= s.LastUsed {
		return s.LastUsed + 1
	}
	return now
}

package match

import "vesper/nostr"

// applyMove is section 2, Move, including the ply-1-before-accept exception.
func (s *State) applyMove(ev *nostr.Event, seenAt int64) {
	ply, err := nostr.Ply(ev)
	if err != nil {
		s.ignore(ev, IgnBadPly, "%s", err.(*nostr.TagError).Reason)
		return
	}
	if !s.Accepted {
		s.applyEarlyMove(ev, ply, seenAt)
		return
	}
	if s.Over {
		s.ignore(ev, IgnGameOver, "game already ended")
		return
	}
	want := s.Plies() + 1
	if ply != want {
		ig := s.ignore(ev, IgnWrongPly, "expected %d, got %d", want, ply)
		ig.Ply, ig.Expected = ply, want
		return
	}
	resign := ev.Content == nostr.ResignContent
	role := s.ToMove()
	switch {
	case resign && s.Role(ev.PubKey) == "":
		s.ignore(ev, IgnNotPlayer, "resign by a non-player")
		return
	case !resign && ev.PubKey != s.Player(role):
		s.ignore(ev, IgnWrongPlayer, "ply %d belongs to the %s player", ply, role)
		return
	}
	// No sum on seenAt: a match.json may give any int64, and seenAt+300
	// would wrap. created_at is in 0..2^53-1 here, so this cannot.
	if int64(ev.CreatedAt)-FutureSlack > seenAt {
		s.ignore(ev, IgnFuture, "created_at > seen_at + %d", FutureSlack)
		return
	}
	if clock := s.Clock(); clock.RanOut(int64(ev.CreatedAt)) {
		ig := s.ignore(ev, IgnLate, "clock ran out (created_at > clock_start + %d)", MoveClock)
		ig.ClockStart, ig.Deadline = clock.Start(), clock.Deadline()
		return
	}
	if resign {
		winner := First
		if s.Role(ev.PubKey) == First {
			winner = Second
		}
		s.end(ev, winner, ReasonResignation)
		return
	}
	// Legality is checked last, by playing the move: Play leaves the game
	// unchanged when the move is illegal, so no copy is needed.
	if !s.count(ev, ev.Content) {
		s.ignore(ev, IgnIllegal, "not a legal move in the current position")
	}
}

// applyEarlyMove holds the first legal ply-1 move of the challenger that
// arrives before the accept; every other early move is ignored.
func (s *State) applyEarlyMove(ev *nostr.Event, ply int, seenAt int64) {
	switch {
	case s.held != nil:
		s.ignore(ev, IgnNotAccepted, "match not accepted yet (a ply-1 move is already held)")
	case ply != 1:
		s.ignore(ev, IgnNotAccepted, "match not accepted yet (only a ply-1 move is held)")
	case ev.PubKey != s.First:
		s.ignore(ev, IgnNotAccepted, "match not accepted yet (only the challenger's move is held)")
	case ev.Content == nostr.ResignContent:
		s.ignore(ev, IgnNotAccepted, "match not accepted yet (resign is not a board move)")
	case int64(ev.CreatedAt) < s.CreatedAt:
		s.ignore(ev, IgnNotAccepted, "move stamped before the challenge")
	case int64(ev.CreatedAt)-FutureSlack > seenAt:
		s.ignore(ev, IgnFuture, "created_at > seen_at + %d", FutureSlack)
	default:
		if _, err := s.game.Clone().Play(ev.Content); err != nil {
			s.ignore(ev, IgnIllegal, "not a legal move in the current position")
			return
		}
		// Listed while no accept has come; the accept takes it out.
		s.held = ev
		s.heldPos = len(s.Ignored)
		s.Ignored = append(s.Ignored, Ignored{ID: ev.ID, Token: IgnHeld, Detail: "waiting for an accept"})
	}
}

// count plays a board move if it is legal, and ends the game if a rule
// ends it. It reports whether the move was legal.
func (s *State) count(ev *nostr.Event, move string) bool {
	canon, err := s.game.Play(move)
	if err != nil {
		return false
	}
	s.Moves = append(s.Moves, canon)
	s.MoveEvents = append(s.MoveEvents, ev.ID)
	s.MoveTimes = append(s.MoveTimes, int64(ev.CreatedAt))
	if over, winner, reason := s.game.Outcome(); over {
		s.end(ev, winner, reason)
	}
	return true
}

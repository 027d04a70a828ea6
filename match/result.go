package match

import "vesper/nostr"

// preResult applies the checks shared by results, requests and rulings:
// nothing before the accept, nothing after the result is final.
func (s *State) preResult(ev *nostr.Event) bool {
	switch {
	case !s.Accepted:
		s.ignore(ev, IgnNotAccepted, "match not accepted yet")
		return false
	case s.Final:
		s.ignore(ev, IgnAlreadyFinal, "result already final")
		return false
	}
	return true
}

func (s *State) parseResult(ev *nostr.Event) (nostr.Result, bool) {
	r, err := nostr.ParseResult(ev.Content)
	if err != nil {
		s.ignore(ev, IgnMalformed, "%s", err.(*nostr.ResultError).Reason)
		return r, false
	}
	return r, true
}

// applyResult is section 2, Results: a timeout claim or a signature.
func (s *State) applyResult(ev *nostr.Event) {
	if !s.preResult(ev) {
		return
	}
	r, ok := s.parseResult(ev)
	if !ok {
		return
	}
	role := s.Role(ev.PubKey)
	if role == "" {
		s.ignore(ev, IgnNotPlayer, "result from a non-player")
		return
	}
	if r.Reason == string(ReasonTimeout) {
		s.applyClaim(ev, r, role)
		return
	}
	s.applySignature(ev, r, role)
}

func (s *State) applyClaim(ev *nostr.Event, r nostr.Result, role string) {
	switch {
	case s.Over:
		s.ignore(ev, IgnClaimInvalid, "game already over")
	case role == s.ToMove():
		s.ignore(ev, IgnClaimInvalid, "claimant is the player to move")
	case !s.Clock().RanOut(int64(ev.CreatedAt)):
		clock := s.Clock()
		ig := s.ignore(ev, IgnClaimPremature, "clock has not run out (created_at <= clock_start + %d)", MoveClock)
		ig.ClockStart, ig.Deadline = clock.Start(), clock.Deadline()
	case r.Result != role:
		s.ignore(ev, IgnClaimInvalid, "result %q does not name the claimant's role %q", r.Result, role)
	case r.Plies != s.Plies() || r.FinalHash != s.FinalHash():
		s.ignore(ev, IgnClaimInvalid, "plies/final_hash are not the current position")
	default:
		s.end(ev, role, ReasonTimeout)
		s.finalize(ev, FinalByTimeout)
	}
}

func (s *State) applySignature(ev *nostr.Event, r nostr.Result, role string) {
	if r.Plies != s.Plies() || r.FinalHash != s.FinalHash() {
		s.ignore(ev, IgnSigInconsistent, "plies/final_hash are not the current position")
		return
	}
	if s.Over && r.Result != s.Result {
		s.ignore(ev, IgnSigInconsistent, "result %q is not the computed %q", r.Result, s.Result)
		return
	}
	other := First
	if role == First {
		other = Second
	}
	s.Sigs[role] = Signature{Event: ev.ID, Result: r}
	if o, ok := s.Sigs[other]; ok && o.Result.Same(r) {
		if !s.Over {
			s.end(ev, r.Result, ReasonAgreement)
		}
		s.finalize(ev, FinalBySignatures)
	}
}

// SignaturesDisagree reports whether both players' latest signatures exist
// and differ on result, plies or final_hash.
func (s *State) SignaturesDisagree() bool {
	a, okA := s.Sigs[First]
	b, okB := s.Sigs[Second]
	return okA && okB && !a.Result.Same(b.Result)
}

// applyRequest is section 2, Arbitration: a request.
func (s *State) applyRequest(ev *nostr.Event) {
	if !s.preResult(ev) {
		return
	}
	if s.Role(ev.PubKey) == "" {
		s.ignore(ev, IgnNotPlayer, "request from a non-player")
		return
	}
	if clock := s.Clock(); !s.SignaturesDisagree() && !clock.DeadlinePassed(int64(ev.CreatedAt)) {
		ig := s.ignore(ev, IgnRequestInvalid, "signatures do not disagree and created_at <= deadline %d", clock.Deadline())
		ig.Deadline = clock.Deadline()
		return
	}
	s.Requests = append(s.Requests, Request{Event: ev.ID, Author: ev.PubKey, CreatedAt: int64(ev.CreatedAt)})
}

// CorrectRuling returns the only ruling that is correct at time t, if any
// exists: the computed result for a game over by rule or resignation, a
// timeout win for the player not to move once the pending clock has run out.
func (s *State) CorrectRuling(t int64) (nostr.Result, bool) {
	if s.Final {
		return nostr.Result{}, false
	}
	if s.Over {
		return s.Computed(), true
	}
	if s.Clock().RanOut(t) {
		return s.TimeoutWin(), true
	}
	return nostr.Result{}, false
}

// TimeoutWin is the result of the pending clock running out: a win for the
// player not to move, on the current position. It is what a valid timeout
// claim and a correct ruling on a stalled game both carry.
func (s *State) TimeoutWin() nostr.Result {
	winner := First
	if s.ToMove() == First {
		winner = Second
	}
	return nostr.Result{Result: winner, Reason: string(ReasonTimeout), Plies: s.Plies(), FinalHash: s.FinalHash()}
}

// applyRuling is section 2, Arbitration: the earliest correct ruling after
// a valid request makes the result final.
func (s *State) applyRuling(ev *nostr.Event) {
	if !s.preResult(ev) {
		return
	}
	r, ok := s.parseResult(ev)
	if !ok {
		return
	}
	if len(s.Requests) == 0 {
		s.ignore(ev, IgnRulingNoRequest, "no valid arbitration request before it")
		return
	}
	want, ok := s.CorrectRuling(int64(ev.CreatedAt))
	if !ok {
		s.ignore(ev, IgnRulingIncorrect, "game in progress and the clock has not run out")
		return
	}
	if !want.Same(r) {
		s.ignore(ev, IgnRulingIncorrect, "does not match the computed result")
		return
	}
	if !s.Over {
		s.end(ev, want.Result, ReasonTimeout)
	}
	s.finalize(ev, FinalByRuling)
}

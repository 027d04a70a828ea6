package seat

import (
	"context"

	"vesper/match"
	"vesper/nostr"
)

// Resign resigns the game (either player, at any turn).
func (s *Seat) Resign(ctx context.Context, ref string) (*Reply, error) {
	return s.ResignWith(ctx, ref, Talk{})
}

// ResignWith is Resign carrying talk: a resignation is a move event, and
// the agent's comment and reasoning go with it (section 8).
func (s *Seat) ResignWith(ctx context.Context, ref string, talk Talk) (*Reply, error) {
	if err := talk.check(); err != nil {
		return nil, err
	}
	snap, st, unlock, err := s.readAsPlayer(ctx, ref)
	defer unlock()
	if err != nil {
		return nil, err
	}
	if st.Over && st.Reason == match.ReasonResignation && author(st, st.EndEvent) == s.Me() {
		return s.already(snap, "resign", st.EndEvent), nil
	}
	ply := st.Plies() + 1
	rep, err := s.signTagging(ctx, snap, "resign", false, "", talk, func(t int64) (*nostr.Event, error) {
		return nostr.NewMove(st.Match, ply, nostr.ResignContent, t), nil
	})
	if rep != nil {
		rep.Ply, rep.Move = ply, nostr.ResignContent
	}
	return rep, err
}

func author(st *match.State, id string) string {
	for _, ev := range st.Events {
		if ev.ID == id {
			return ev.PubKey
		}
	}
	return ""
}

// Agree proposes, or accepts, an agreed result on the current position:
// result is "draw", "first" or "second" ("white"/"black" are aliases in
// chess). Once both players' signatures match, the result is final. On a
// game already over, only the computed result is accepted by the fold.
func (s *Seat) Agree(ctx context.Context, ref, result string) (*Reply, error) {
	return s.AgreeWith(ctx, ref, result, Talk{})
}

// AgreeWith is Agree committing reasoning (section 8.2).
func (s *Seat) AgreeWith(ctx context.Context, ref, result string, talk Talk) (*Reply, error) {
	if err := talk.resultOnly(); err != nil {
		return nil, err
	}
	switch result {
	case "white":
		result = match.First
	case "black":
		result = match.Second
	case match.First, match.Second, match.Draw:
	default:
		return nil, inputf("result must be draw, first or second (white/black in chess), not %q", result)
	}
	snap, st, unlock, err := s.readAsPlayer(ctx, ref)
	defer unlock()
	if err != nil {
		return nil, err
	}
	reason := string(match.ReasonAgreement)
	if st.Over {
		reason = string(st.Reason)
	}
	r := nostr.Result{Result: result, Reason: reason, Plies: st.Plies(), FinalHash: st.FinalHash()}
	return s.signResult(ctx, snap, "agree", r, talk)
}

// SignResult signs the result the fold computed for a game over by rule or
// resignation.
func (s *Seat) SignResult(ctx context.Context, ref string) (*Reply, error) {
	return s.SignResultWith(ctx, ref, Talk{})
}

// SignResultWith is SignResult committing reasoning (section 8.2: a result
// that ends or agrees a game may). Once the result is final, the key's
// pending reveals of the match are published (RevealDue's rule).
func (s *Seat) SignResultWith(ctx context.Context, ref string, talk Talk) (*Reply, error) {
	if err := talk.resultOnly(); err != nil {
		return nil, err
	}
	snap, st, unlock, err := s.readAsPlayer(ctx, ref)
	defer unlock()
	if err != nil {
		return nil, err
	}
	if !st.Over && !st.Final {
		r := &Refusal{Rule: RuleNotOver, Reason: "the game is not over: there is no computed result to sign (offer one with --agree draw|first|second)"}
		if !st.Accepted {
			r.Rule, r.Reason = match.IgnNotAccepted, "match not accepted yet"
		}
		return nil, snap.withContext(r, s.Me(), snap.At, false)
	}
	return s.signResult(ctx, snap, "result", st.Computed(), talk)
}

func (s *Seat) signResult(ctx context.Context, snap *Snapshot, action string, r nostr.Result, talk Talk) (*Reply, error) {
	st := snap.State
	if role := st.Role(s.Me()); role != "" {
		if sig, ok := st.Sigs[role]; ok && sig.Result.Same(r) {
			rep := s.already(snap, action, sig.Event)
			rep.Result = &r
			rep.Revealed = s.revealAfter(ctx, st)
			return rep, nil
		}
	}
	rep, err := s.signTagging(ctx, snap, action, false, "", talk, func(t int64) (*nostr.Event, error) {
		return nostr.NewResult(st.Match, r, t), nil
	})
	if rep != nil {
		rep.Result = &r
		rep.Revealed = s.revealAfter(ctx, rep.after)
	}
	return rep, err
}

// ClaimTimeout claims the win once the opponent's 24-hour clock has run out.
func (s *Seat) ClaimTimeout(ctx context.Context, ref string) (*Reply, error) {
	snap, st, unlock, err := s.readAsPlayer(ctx, ref)
	defer unlock()
	if err != nil {
		return nil, err
	}
	if st.Final && st.FinalBy == match.FinalByTimeout && author(st, st.FinalEvent) == s.Me() {
		return s.already(snap, "claim-timeout", st.FinalEvent), nil
	}
	// The claim names the claimant's role; the fold checks the rest.
	r := st.TimeoutWin()
	if role := st.Role(s.Me()); role != "" {
		r.Result = role
	}
	rep, err := s.sign(ctx, snap, "claim-timeout", false, func(t int64) (*nostr.Event, error) {
		return nostr.NewResult(st.Match, r, t), nil
	})
	if rep != nil {
		rep.Result = &r
	}
	return rep, err
}

// RequestArbitration asks for a ruling: valid when the players' signatures
// disagree or the deadline has passed.
func (s *Seat) RequestArbitration(ctx context.Context, ref, note string) (*Reply, error) {
	snap, st, unlock, err := s.readAsPlayer(ctx, ref)
	defer unlock()
	if err != nil {
		return nil, err
	}
	for _, q := range st.Requests {
		if q.Author == s.Me() && !st.Final {
			return s.already(snap, "arbitrate", q.Event), nil
		}
	}
	if note == "" {
		note = "arbitration requested"
	}
	return s.sign(ctx, snap, "arbitrate", false, func(t int64) (*nostr.Event, error) {
		return nostr.NewRequest(st.Match, note, t), nil
	})
}

// Rule publishes, as arbiter, the ruling that is correct now, if one is.
func (s *Seat) Rule(ctx context.Context, ref string) (*Reply, error) {
	snap, st, unlock, err := s.readAsPlayer(ctx, ref)
	defer unlock()
	if err != nil {
		return nil, err
	}
	var r nostr.Result
	rep, err := s.sign(ctx, snap, "rule", false, func(t int64) (*nostr.Event, error) {
		want, ok := st.CorrectRuling(t)
		if !ok {
			// Nothing can be correct: post the timeout win anyway and let
			// the fold say why it would be ignored.
			want = st.TimeoutWin()
		}
		r = want
		return nostr.NewRuling(st.Match, want, t), nil
	})
	if rep != nil {
		rep.Result = &r
	}
	return rep, err
}

// readAsPlayer is the start of every action on a match: a key to sign
// with, the key's lock on the match (released by the returned func, which
// is never nil), and the match as the relays that answered hold it once
// the lock is held, so that an action that waited for another one of the
// same key answers from what that one did.
func (s *Seat) readAsPlayer(ctx context.Context, ref string) (*Snapshot, *match.State, func(), error) {
	none := func() {}
	if err := s.needKey(); err != nil {
		return nil, nil, none, err
	}
	id, _, err := matchRef(ref)
	if err != nil {
		return nil, nil, none, inputf("MATCH: %v", err)
	}
	unlock, err := s.lock(ctx, id)
	if err != nil {
		return nil, nil, none, err
	}
	snap, err := s.Read(ctx, ref)
	if err != nil {
		unlock()
		return nil, nil, none, err
	}
	return snap, snap.State, unlock, nil
}

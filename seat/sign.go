package seat

import (
	"context"
	"fmt"
	"maps"

	"vesper/match"
	"vesper/nostr"
)

// needKey is the start of every signing action.
func (s *Seat) needKey() error {
	if s.Key.IsZero() {
		return inputf("this action needs a key")
	}
	return nil
}

// sign checks ev against the fold, signs and publishes it, and builds the
// reply. build gets the stamp; legal says a refusal should list the legal
// moves.
func (s *Seat) sign(ctx context.Context, snap *Snapshot, action string, legal bool, build func(t int64) (*nostr.Event, error)) (*Reply, error) {
	return s.signTagging(ctx, snap, action, legal, "", Talk{}, build)
}

// signTagging is sign for an event that tags the player tagged: once the
// fold has counted it, it also goes to that player's read relays.
//
// talk's tags (section 8) are added to the event; a reasoning is committed
// with a fresh salt, and salt and text are journalled, durably, after the
// fold has agreed to the event and before it is published.
func (s *Seat) signTagging(ctx context.Context, snap *Snapshot, action string, legal bool, tagged string, talk Talk, build func(t int64) (*nostr.Event, error)) (*Reply, error) {
	st, me := snap.State, s.Me()
	ev, t, tags, commit, err := s.buildSigned(snap, legal, talk, build)
	if err != nil {
		return nil, err
	}
	// The fold is asked before the clock is waited for: a refusal is
	// answered at once, and waiting cannot change the answer (the event's
	// stamp is fixed, and a later receipt only loosens rule 5).
	now := s.now().Unix()
	after, ig := st.Try(ev, now)
	if ig != nil {
		return nil, snap.withContext(&Refusal{Rule: ig.Token, Reason: ig.Detail}, me, now, legal)
	}
	if commit != nil {
		if err := s.journal().append(st.Match, journalLine{Event: ev.ID, Match: st.Match, Salt: commit.Salt,
			Text: commit.Text, CreatedAt: int64(ev.CreatedAt)}); err != nil {
			return nil, err
		}
	}
	if err := s.waitFor(ctx, t); err != nil {
		return nil, err
	}
	if s.BeforePublish != nil {
		if err := s.BeforePublish(ev); err != nil {
			return nil, err
		}
	}
	now = s.now().Unix()
	// The match's relay hints take the event as well as the inbox: an
	// accept that only reached the seat's own relays would leave the
	// challenger, who reads the hinted ones, waiting for an accept that
	// never comes, while a second player's accept there counts instead.
	inbox := s.inbox(ctx, tagged, snap.hints)
	accepted, failed, err := s.publish(ctx, ev, withRelays(snap.hints, inbox)...)
	if err != nil {
		return nil, err
	}
	if s.AfterPublish != nil {
		s.AfterPublish(ev)
	}
	rep := &Reply{OK: true, Action: action, Match: st.Match, Event: ev.ID, Kind: ev.Kind,
		Accepted: accepted, Failed: failed, Inbox: inbox, Reasoning: tags.Reasoning, after: after}
	rep.Status = snap.afterPublish(ev, after, accepted, now).Status(me, now)
	rep.Note = note(st, after, me)
	return rep, nil
}

// buildSigned stamps the event, builds it with talk's tags and signs it.
// A refusal while stamping or building comes with the match's context.
func (s *Seat) buildSigned(snap *Snapshot, legal bool, talk Talk, build func(t int64) (*nostr.Event, error)) (ev *nostr.Event, t int64, tags nostr.Talk, commit *commitment, err error) {
	me := s.Me()
	t, err = s.stamp(snap.State)
	if err != nil {
		if r, ok := err.(*Refusal); ok {
			return nil, 0, tags, nil, snap.withContext(r, me, s.now().Unix(), legal)
		}
		return nil, 0, tags, nil, err
	}
	ev, err = build(t)
	if err != nil {
		if r, ok := err.(*Refusal); ok {
			return nil, 0, tags, nil, snap.withContext(r, me, t, legal)
		}
		return nil, 0, tags, nil, err
	}
	tags, commit = talk.commit()
	nostr.WithTalk(ev, tags)
	ev.PubKey = me
	if err := s.Key.Sign(ev); err != nil {
		return nil, 0, tags, nil, fmt.Errorf("seat: cannot sign: %w", err)
	}
	return ev, t, tags, commit, nil
}

// afterPublish is the snapshot once ev, published to the relays in
// accepted at now, has moved the match to after.
func (snap *Snapshot) afterPublish(ev *nostr.Event, after *match.State, accepted []string, now int64) *Snapshot {
	snap.SeenAt[ev.ID] = now
	heldBy := maps.Clone(snap.HeldBy)
	if heldBy == nil {
		heldBy = map[string][]string{}
	}
	heldBy[ev.ID] = accepted
	next := &Snapshot{State: after, SeenAt: snap.SeenAt, Answered: snap.Answered, Failed: snap.Failed, At: now, HeldBy: heldBy, hints: snap.hints}
	// Try's copy lists no events; the status needs them for contents.
	after.Events = append(append([]*nostr.Event(nil), snap.State.Events...), ev)
	return next
}

// note tells the agent what the action led to.
func note(before, after *match.State, me string) string {
	switch {
	case after.Final && !before.Final:
		return fmt.Sprintf("the result is final: %s (%s, by %s)", after.Result, after.Reason, after.FinalBy)
	case after.Over && !before.Over:
		return fmt.Sprintf("the game is over: %s (%s); both players must now sign the result (vesper result MATCH) for it to be final", after.Result, after.Reason)
	case after.Role(me) != "" && after.Sigs[after.Role(me)].Event != before.Sigs[after.Role(me)].Event:
		return "your signature is posted; the result becomes final when the other player signs the same"
	case !after.Accepted && after.HeldMove() != nil:
		return "the move is held until the challenge is accepted; it counts then"
	case after.Accepted && !after.Over:
		if after.Role(me) == after.ToMove() {
			return "your move"
		}
		return "the opponent's move"
	}
	return ""
}

func (s *Seat) already(snap *Snapshot, action, event string) *Reply {
	me := s.Me()
	rep := &Reply{OK: true, Already: true, Action: action, Match: snap.State.Match, Event: event,
		Accepted: []string{}, Failed: snap.Failed, Status: snap.Status(me, snap.At)}
	for _, ev := range snap.State.Events {
		if ev.ID == event {
			rep.Kind = ev.Kind
		}
	}
	if rep.Failed == nil {
		rep.Failed = map[string]string{}
	}
	return rep
}

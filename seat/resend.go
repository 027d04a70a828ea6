package seat

import (
	"context"
	"fmt"

	"vesper/nostr"
)

// Resend sends again an event this key signed in match ref and a runner
// journaled before it was first sent (Seat.BeforePublish): after a crash,
// the exact event (its comment, committed reasoning, attempts, usage) goes
// out again, never a second event for the same ply. It answers Already
// when the relays that answered hold it; a *Refusal with the fold's token
// when the fold would not count it now (the game moved on); else it is
// published. Its reasoning was journaled by the seat when it was signed.
func (s *Seat) Resend(ctx context.Context, ref string, ev *nostr.Event) (*Reply, error) {
	if ev == nil || ev.PubKey != s.Me() {
		return nil, inputf("resend: the event is not this key's")
	}
	if err := nostr.Verify(ev); err != nil {
		return nil, fmt.Errorf("seat: resend: %w", err)
	}
	snap, st, unlock, err := s.readAsPlayer(ctx, ref)
	defer unlock()
	if err != nil {
		return nil, err
	}
	if !nostr.HasMatchTag(ev, st.Match) {
		return nil, inputf("resend: event %s is not of match %s", ev.ID, st.Match)
	}
	for _, have := range st.Events {
		if have.ID == ev.ID {
			return s.already(snap, "resend", ev.ID), nil
		}
	}
	now := s.now().Unix()
	after, ig := st.Try(ev, now)
	if ig != nil {
		return nil, snap.withContext(&Refusal{Rule: ig.Token, Reason: ig.Detail}, s.Me(), now, false)
	}
	accepted, failed, err := s.publish(ctx, ev, snap.hints...)
	if err != nil {
		return nil, err
	}
	if s.AfterPublish != nil {
		s.AfterPublish(ev)
	}
	rep := &Reply{OK: true, Action: "resend", Match: st.Match, Event: ev.ID, Kind: ev.Kind, Accepted: accepted, Failed: failed, after: after}
	rep.Status = snap.afterPublish(ev, after, accepted, now).Status(s.Me(), now)
	rep.Note = note(st, after, s.Me())
	if ply, err := nostr.Ply(ev); err == nil && ev.Kind == nostr.KindMove {
		rep.Ply, rep.Move = ply, ev.Content
	}
	return rep, nil
}

package match

import "vesper/nostr"

// applyAccept is section 2, Accept. The first valid accept counts and
// releases the held ply-1 move, if any.
func (s *State) applyAccept(ev *nostr.Event) {
	switch {
	case s.Accepted:
		s.ignore(ev, IgnAcceptExtra, "match already accepted")
	case !nostr.NamesPubkey(ev, s.First):
		s.ignore(ev, IgnAcceptBadP, "no p tag naming the challenger")
	case ev.PubKey == s.First:
		s.ignore(ev, IgnAcceptSelf, "the challenger cannot accept its own challenge")
	case s.Invitee != "" && ev.PubKey != s.Invitee:
		s.ignore(ev, IgnAcceptNotInv, "author is not the invitee")
	case int64(ev.CreatedAt) < s.CreatedAt:
		s.ignore(ev, IgnAcceptWindow, "created_at %d is before the challenge", ev.CreatedAt)
	case int64(ev.CreatedAt) > s.Clock().Expires():
		s.ignore(ev, IgnAcceptWindow, "created_at %d is after the challenge expired", ev.CreatedAt)
	default:
		s.Accepted, s.Second = true, ev.PubKey
		s.AcceptAt, s.AcceptEvent = int64(ev.CreatedAt), ev.ID
		if s.held != nil {
			s.count(s.held, s.held.Content)
			// The held move leaves the ignored list once counted. A new
			// slice, since a Clone may share the old one.
			rest := make([]Ignored, 0, len(s.Ignored)-1)
			rest = append(rest, s.Ignored[:s.heldPos]...)
			s.Ignored = append(rest, s.Ignored[s.heldPos+1:]...)
			s.held = nil
		}
	}
}

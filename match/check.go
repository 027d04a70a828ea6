package match

import (
	"fmt"

	"vesper/nostr"
)

// IgnNotOfMatch is Check's token for an event the fold would not even see as
// an event of this match (wrong kind, or no g tag naming it). It is not a
// fold reason: such an event is simply not part of the match.
const IgnNotOfMatch = "not_of_match"

// IgnOutOfOrder is Check's token for an event stamped no later than the last
// event the fold used. The fold would place it before that event, so what it
// would do there cannot be read off the current state; a signer stamps after
// LastUsed (PROTOCOL.md section 7) and never meets it.
const IgnOutOfOrder = "out_of_order"

// IgnBadCreatedAt is Check's token for an event whose created_at section 1
// refuses (above 2^53-1, nostr.MaxCreatedAt, or negative): the fold drops
// it before any match sees it, so it is never listed as ignored either.
const IgnBadCreatedAt = "bad_created_at"

// Check answers the question every signer asks before it signs: would the
// fold count ev if this verifier received it now, at seenAt? It returns nil
// when the event would be used (a held ply-1 move counts as used), and
// otherwise the entry the fold itself would add to Ignored, with the fold's
// own reason token. It is pure and leaves s unchanged.
//
// The answer is the fold's: Check applies ev to a copy of the state with the
// same apply functions Fold uses, so no rule is written twice.
func (s *State) Check(ev *nostr.Event, seenAt int64) *Ignored {
	_, ig := s.Try(ev, seenAt)
	return ig
}

// Try is Check that also returns the state after ev (a copy; s is not
// changed), so a signer can report the position its event leads to. When
// ev would be ignored the returned state is nil.
func (s *State) Try(ev *nostr.Event, seenAt int64) (*State, *Ignored) {
	if ev == nil {
		return nil, &Ignored{Token: IgnNotOfMatch, Detail: "no event"}
	}
	if ev.ID == s.Match || !nostr.IsMatchKind(ev.Kind) || !nostr.HasMatchTag(ev, s.Match) {
		return nil, &Ignored{ID: ev.ID, Token: IgnNotOfMatch, Detail: fmt.Sprintf("kind %d event with no g tag naming match %s", ev.Kind, s.Match)}
	}
	if !nostr.CreatedAtInRange(ev.CreatedAt) {
		return nil, &Ignored{ID: ev.ID, Token: IgnBadCreatedAt,
			Detail: fmt.Sprintf("created_at %d is outside 0..%d, so every verifier drops the event", ev.CreatedAt, nostr.MaxCreatedAt)}
	}
	if int64(ev.CreatedAt) <= s.LastUsed {
		return nil, &Ignored{ID: ev.ID, Token: IgnOutOfOrder,
			Detail: fmt.Sprintf("created_at %d is not after the match's last used event (%d)", ev.CreatedAt, s.LastUsed)}
	}
	c := s.Clone()
	// The copy only answers one question; it need not list the events.
	c.Events = nil
	before := c.ignores
	c.folded(ev)
	c.apply(ev, seenAt)
	if c.ignores > before {
		ig := c.Ignored[len(c.Ignored)-1]
		return nil, &ig
	}
	return c, nil
}

package match

import (
	"maps"

	"vesper/nostr"
)

// Clone returns an independent copy of the state, to extend without
// disturbing readers of the original.
func (s *State) Clone() *State {
	c := *s
	c.Moves = append([]string(nil), s.Moves...)
	c.MoveEvents = append([]string(nil), s.MoveEvents...)
	c.MoveTimes = append([]int64(nil), s.MoveTimes...)
	c.Sigs = maps.Clone(s.Sigs)
	c.Requests = append([]Request(nil), s.Requests...)
	c.Ignored = append([]Ignored(nil), s.Ignored...)
	c.Events = append([]*nostr.Event(nil), s.Events...)
	c.game = s.game.Clone()
	return &c
}

// Extend applies one more event in place when that gives exactly what a
// full Fold would: the event belongs to the match, is new, and sorts after
// every event already folded (the common case of a live move). It reports
// false, changing nothing, when the caller must re-fold instead.
func (s *State) Extend(ev *nostr.Event, seenAt int64) bool {
	if ev.ID == s.Match || !nostr.IsMatchKind(ev.Kind) || !nostr.HasMatchTag(ev, s.Match) {
		return false
	}
	if len(s.Events) == 0 {
		return false // compacted: the caller re-folds
	}
	last := s.Events[len(s.Events)-1]
	if len(s.Events) > 1 && !Less(last, ev) {
		return false
	}
	s.Events = append(s.Events, ev)
	s.apply(ev, seenAt)
	return true
}

// Compact returns a copy without the events, for keeping many finished
// matches in memory: everything but Events and Extend still works (Extend
// then always asks for a re-fold).
func (s *State) Compact() *State {
	c := *s
	c.Events = nil
	return &c
}

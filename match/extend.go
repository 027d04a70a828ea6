package match

import (
	"errors"
	"maps"
	"slices"

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
	if s.Events != nil {
		c.Events = append([]*nostr.Event(nil), s.Events...)
	}
	c.game = s.game.Clone()
	return &c
}

// Extend applies one more event in place when that gives exactly what a
// full Fold would: the event belongs to the match, is new, and sorts after
// every event already folded (the common case of a live move). It reports
// false, changing nothing, when the caller must re-fold instead. A lean
// state extends like a full one but keeps no events.
func (s *State) Extend(ev *nostr.Event, seenAt int64) bool {
	if ev.ID == s.Match || !nostr.IsMatchKind(ev.Kind) || !nostr.HasMatchTag(ev, s.Match) {
		return false
	}
	if _, done := s.game.(*frozen); done {
		return false // compacted: the caller re-folds
	}
	if s.tailID != "" && !Less(&nostr.Event{CreatedAt: nostr.Timestamp(s.tailAt), ID: s.tailID}, ev) {
		return false
	}
	if s.Events != nil {
		s.Events = append(s.Events, ev)
	}
	s.folded(ev)
	s.apply(ev, seenAt)
	return true
}

// folded records ev as the latest event in fold order, which is all Extend
// needs to know of the events before it.
func (s *State) folded(ev *nostr.Event) {
	s.tailAt, s.tailID = int64(ev.CreatedAt), ev.ID
}

// LastFolded is the created_at of the last event in fold order (the
// challenge's while it is alone): an event stamped later extends the state,
// an earlier one needs a re-fold.
func (s *State) LastFolded() int64 {
	if s.tailID == "" {
		return s.CreatedAt
	}
	return s.tailAt
}

// Lean returns a copy without the events, for keeping many live matches in
// memory: it extends, plays and summarises like the full state, but has no
// Events to list (the store has them).
func (s *State) Lean() *State {
	c := s.Clone()
	c.Events = nil
	return c
}

// Compact returns a copy without the events or the move events and with the
// board frozen, for keeping many finished matches in memory: summaries,
// hashes and results still work; Extend always asks for a re-fold and the
// frozen board accepts no move.
func (s *State) Compact() *State {
	c := *s
	c.Events, c.MoveEvents = nil, nil
	c.Moves = slices.Clone(s.Moves)
	c.MoveTimes = slices.Clone(s.MoveTimes)
	c.Ignored = slices.Clone(s.Ignored)
	over, winner, reason := s.game.Outcome()
	c.game = &frozen{kind: s.game.Kind(), hash: s.game.Hash(), moves: s.game.Moves(),
		over: over, winner: winner, reason: reason}
	return &c
}

// frozen is a finished position: its hash and moves, nothing to play.
type frozen struct {
	kind, hash string
	moves      []string
	over       bool
	winner     string
	reason     Reason
}

func (f *frozen) Kind() string { return f.kind }
func (f *frozen) Play(string) (string, error) {
	return "", errors.New("match: a compacted state takes no moves")
}
func (f *frozen) Outcome() (bool, string, Reason) { return f.over, f.winner, f.reason }
func (f *frozen) Hash() string                    { return f.hash }
func (f *frozen) Plies() int                      { return len(f.moves) }
func (f *frozen) Moves() []string                 { return f.moves }
func (f *frozen) Clone() Game                     { return f }

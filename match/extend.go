package match

import (
	"errors"
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

// Compact returns a copy without the events and with the board frozen,
// for keeping many finished matches in memory: summaries, hashes and
// results still work; Extend always asks for a re-fold and the frozen board
// accepts no move.
func (s *State) Compact() *State {
	c := *s
	c.Events = nil
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

package match

import (
	"errors"
	"maps"
	"slices"
	"sort"

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
	if s.Reveals != nil {
		c.Reveals = append([]*nostr.Event(nil), s.Reveals...)
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
	if !nostr.CreatedAtInRange(ev.CreatedAt) {
		return true // dropped by section 1: the fold never sees it
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
	c.Events, c.Reveals = nil, nil
	return c
}

// Compact returns a copy without the events or the move events and with the
// board frozen, for keeping many finished matches in memory: summaries,
// hashes and results still work; Extend always asks for a re-fold and the
// frozen board accepts no move.
func (s *State) Compact() *State {
	c := *s
	c.Events, c.MoveEvents, c.Reveals = nil, nil, nil
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

// Insert applies an event that sorts before the last one folded, in place,
// when the fold would ignore it at its point in fold order whatever came
// after: then its only effect is an entry in Ignored (and in Events) at
// that point. It reports false, changing nothing, when the caller must
// re-fold. This keeps an attacker who drips backdated junk into a long
// match from costing a whole re-fold per event: each such event costs
// about what it takes to place it.
//
// The point's state is known without replaying in these cases: an event
// ignored by section 1 or the g-tag rule (any point); an accept after the
// counted accept (the match is accepted there), or before it or with none
// (not accepted there); a move after the event that ended the game; a
// result, request or ruling before the accept, or after the event that
// made the result final; and any event after the last event the fold used
// (the state there is the current one: ignored events change nothing but
// the list). The event is tried on a copy of that state and kept only if
// the copy ignored it and changed nothing else.
func (s *State) Insert(ev *nostr.Event, seenAt int64) bool {
	if ev.ID == s.Match || !nostr.IsMatchKind(ev.Kind) || !nostr.HasMatchTag(ev, s.Match) {
		return false
	}
	if !nostr.CreatedAtInRange(ev.CreatedAt) {
		return true // dropped by section 1: the fold never sees it
	}
	if s.held != nil || s.tailID == "" || !Less(ev, &nostr.Event{CreatedAt: nostr.Timestamp(s.tailAt), ID: s.tailID}) {
		return false // a held move's list entry has no time to place by; Extend handles the tail
	}
	if s.hasIgnored(ev.ID) {
		return false
	}
	probe, ok := s.probeAt(ev)
	if !ok {
		return false
	}
	before := *probe
	probe.apply(ev, seenAt)
	if len(probe.Ignored) != 1 || !probe.sameAs(&before) {
		return false // used, or more than an ignore: only a re-fold is exact
	}
	entry := probe.Ignored[0]
	i := sort.Search(len(s.Ignored), func(i int) bool {
		e := s.Ignored[i]
		return e.at > entry.at || (e.at == entry.at && e.ID > entry.ID)
	})
	// A new slice, since a Clone may share the old one.
	list := make([]Ignored, 0, len(s.Ignored)+1)
	list = append(append(append(list, s.Ignored[:i]...), entry), s.Ignored[i:]...)
	s.Ignored = list
	s.ignores++
	if s.Events != nil {
		j := 1 + sort.Search(len(s.Events)-1, func(j int) bool { return Less(ev, s.Events[j+1]) })
		evs := make([]*nostr.Event, 0, len(s.Events)+1)
		s.Events = append(append(append(evs, s.Events[:j]...), ev), s.Events[j:]...)
	}
	return true
}

// probeAt returns a scratch copy of the state as the fold would have it
// when it reaches ev, for the cases Insert knows, with an empty Ignored.
func (s *State) probeAt(ev *nostr.Event) (*State, bool) {
	p := *s
	p.Ignored, p.Events = nil, nil
	// Full slice expressions: an append by the probe copies instead of
	// writing into the state's arrays.
	p.Moves = s.Moves[:len(s.Moves):len(s.Moves)]
	p.MoveEvents = s.MoveEvents[:len(s.MoveEvents):len(s.MoveEvents)]
	p.MoveTimes = s.MoveTimes[:len(s.MoveTimes):len(s.MoveTimes)]
	p.Requests = s.Requests[:len(s.Requests):len(s.Requests)]
	p.Sigs = maps.Clone(s.Sigs)
	if _, _, static := staticReason(ev); static || IsStub(ev) {
		return &p, true
	}
	after := func(at int64, id string) bool {
		return id != "" && Less(&nostr.Event{CreatedAt: nostr.Timestamp(at), ID: id}, ev)
	}
	acceptedHere := s.Accepted && after(s.AcceptAt, s.AcceptEvent)
	switch {
	case ev.Kind == nostr.KindAccept && acceptedHere:
		return &p, true
	case ev.Kind == nostr.KindAccept:
		// Before the counted accept nothing is accepted; the accept rule
		// reads nothing else of the state but the challenge.
		p.Accepted = false
		return &p, true
	case ev.Kind == nostr.KindMove && s.Over && after(s.EndedAt, s.EndEvent):
		return &p, true
	case ev.Kind != nostr.KindMove && !acceptedHere:
		p.Accepted = false
		return &p, true
	case ev.Kind != nostr.KindMove && s.Final && after(s.finalAt, s.FinalEvent):
		return &p, true
	case s.usedID == "" || after(s.usedAt, s.usedID):
		if _, done := s.game.(*frozen); done {
			return nil, false
		}
		p.game = s.game.Clone()
		return &p, true
	}
	return nil, false
}

// sameAs reports whether a probe left everything but Ignored as it was.
func (s *State) sameAs(b *State) bool {
	return s.Accepted == b.Accepted && s.Second == b.Second && len(s.Moves) == len(b.Moves) &&
		s.Over == b.Over && s.Final == b.Final && len(s.Requests) == len(b.Requests) &&
		maps.Equal(s.Sigs, b.Sigs) && s.held == b.held && s.LastUsed == b.LastUsed &&
		s.usedID == b.usedID
}

func (s *State) hasIgnored(id string) bool {
	for _, e := range s.Ignored {
		if e.ID == id {
			return true
		}
	}
	return false
}

// FileEvents are the match's events as match.json lists them (section 6):
// Events with the Reveals merged in fold order, the challenge first. The
// fold skips reveals, so verifying the file gives the same summary, and
// the file carries what a reader needs to check a commitment (section 8.2).
func (s *State) FileEvents() []*nostr.Event {
	if len(s.Reveals) == 0 || len(s.Events) == 0 {
		return s.Events
	}
	out := make([]*nostr.Event, 0, len(s.Events)+len(s.Reveals))
	out = append(out, s.Events[0])
	rest, rv := s.Events[1:], s.Reveals
	for len(rest) > 0 || len(rv) > 0 {
		if len(rv) == 0 || len(rest) > 0 && Less(rest[0], rv[0]) {
			out, rest = append(out, rest[0]), rest[1:]
		} else {
			out, rv = append(out, rv[0]), rv[1:]
		}
	}
	return out
}

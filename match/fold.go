package match

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"vesper/nostr"
)

// NoMatchError says why the events hold no valid match (section 2,
// Challenge): printed as "no match: <why>".
type NoMatchError struct{ Why string }

func (e *NoMatchError) Error() string { return "no match: " + e.Why }

// Fold computes the state of match from its events (section 2). events may
// hold anything already checked by section 1 (nostr.Verify): events of other
// matches, duplicates and other kinds are skipped. seenAt maps event ids to
// the time this verifier first received them; a missing entry means the
// event's created_at (section 6).
func Fold(match string, events []*nostr.Event, seenAt map[string]int64) (*State, error) {
	byID := make(map[string]*nostr.Event, len(events))
	var challenge *nostr.Event
	for _, ev := range events {
		if ev == nil {
			continue
		}
		if ev.ID == match && ev.Kind == nostr.KindChallenge {
			challenge = ev
			continue
		}
		if nostr.IsMatchKind(ev.Kind) && nostr.HasMatchTag(ev, match) {
			byID[ev.ID] = ev
		}
	}
	if challenge == nil {
		return nil, &NoMatchError{Why: "no challenge event with id " + match}
	}
	s, err := newState(challenge)
	if err != nil {
		return nil, err
	}
	ordered := make([]*nostr.Event, 0, len(byID))
	for _, ev := range byID {
		ordered = append(ordered, ev)
	}
	sort.Slice(ordered, func(i, j int) bool { return Less(ordered[i], ordered[j]) })
	for _, ev := range ordered {
		seen, ok := seenAt[ev.ID]
		if !ok {
			seen = int64(ev.CreatedAt)
		}
		s.Events = append(s.Events, ev)
		s.folded(ev)
		s.apply(ev, seen)
	}
	return s, nil
}

// Less is fold order: created_at ascending, then id ascending.
func Less(a, b *nostr.Event) bool {
	if a.CreatedAt != b.CreatedAt {
		return a.CreatedAt < b.CreatedAt
	}
	return a.ID < b.ID
}

// FindChallenge returns the id of the single challenge among events, for a
// match.json whose "match" is absent (section 6).
func FindChallenge(events []*nostr.Event) (string, error) {
	id := ""
	for _, ev := range events {
		if ev.Kind != nostr.KindChallenge || ev.ID == id {
			continue
		}
		if id != "" {
			return "", &NoMatchError{Why: "more than one challenge and no match id"}
		}
		id = ev.ID
	}
	if id == "" {
		return "", &NoMatchError{Why: "no challenge event"}
	}
	return id, nil
}

func newState(ch *nostr.Event) (*State, error) {
	if nostr.TooLarge(ch) {
		return nil, &NoMatchError{Why: fmt.Sprintf("challenge exceeds %d bytes", nostr.MaxEventSize)}
	}
	kind, err := challengeGame(ch.Content)
	if err != nil {
		return nil, err
	}
	invitee, err := nostr.ChallengeTags(ch)
	if err != nil {
		var te *nostr.TagError
		if errors.As(err, &te) {
			return nil, &NoMatchError{Why: te.Reason}
		}
		return nil, &NoMatchError{Why: err.Error()}
	}
	if invitee == ch.PubKey {
		return nil, &NoMatchError{Why: "the challenger invites itself"}
	}
	g, err := NewGame(kind)
	if err != nil {
		return nil, &NoMatchError{Why: err.Error()}
	}
	return &State{
		Match: ch.ID, Kind: kind, First: ch.PubKey, Invitee: invitee,
		CreatedAt: int64(ch.CreatedAt), LastUsed: int64(ch.CreatedAt), Events: []*nostr.Event{ch},
		Sigs: map[string]Signature{}, game: g,
	}, nil
}

// challengeGame reads {"game":"chess"|"gomoku"} by exact key; other fields
// are ignored and a repeated key keeps its last value.
func challengeGame(content string) (string, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(content), &obj); err != nil || obj == nil {
		return "", &NoMatchError{Why: "challenge content is not a JSON object"}
	}
	raw, ok := obj["game"]
	if !ok {
		return "", &NoMatchError{Why: "challenge content has no game"}
	}
	var g string
	if err := json.Unmarshal(raw, &g); err != nil || (g != nostr.GameChess && g != nostr.GameGomoku) {
		return "", &NoMatchError{Why: "game is not \"chess\" or \"gomoku\": " + truncate(string(raw))}
	}
	return g, nil
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

func (s *State) ignore(ev *nostr.Event, token, format string, args ...any) {
	s.ignores++
	s.Ignored = append(s.Ignored, Ignored{ID: ev.ID, Token: token, Detail: fmt.Sprintf(format, args...)})
}

// apply dispatches one event, in fold order, to its rule.
func (s *State) apply(ev *nostr.Event, seenAt int64) {
	if nostr.TooLarge(ev) {
		s.ignore(ev, IgnTooLarge, "canonical serialization exceeds %d bytes", nostr.MaxEventSize)
		return
	}
	if err := nostr.SingleG(ev); err != nil {
		s.ignore(ev, IgnBadG, "%s", err.(*nostr.TagError).Reason)
		return
	}
	// Count ignores, not the list's length: an accept shortens the list
	// when it releases the held move.
	before := s.ignores
	defer func() {
		if s.ignores == before && int64(ev.CreatedAt) > s.LastUsed {
			s.LastUsed = int64(ev.CreatedAt)
		}
	}()
	switch ev.Kind {
	case nostr.KindAccept:
		s.applyAccept(ev)
	case nostr.KindMove:
		s.applyMove(ev, seenAt)
	case nostr.KindResult:
		s.applyResult(ev)
	case nostr.KindRequest:
		s.applyRequest(ev)
	case nostr.KindRuling:
		s.applyRuling(ev)
	}
}

// end closes the game with a result.
func (s *State) end(ev *nostr.Event, result string, reason Reason) {
	s.Over, s.Result, s.Reason = true, result, reason
	s.EndedAt, s.EndEvent = int64(ev.CreatedAt), ev.ID
}

func (s *State) finalize(ev *nostr.Event, by FinalBy) {
	s.Final, s.FinalBy, s.FinalEvent = true, by, ev.ID
}

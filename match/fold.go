package match

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

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
// event's created_at (section 6). Reveals (kind 4427) naming the match
// are kept in State.Reveals and nothing else: section 8 changes no rule.
func Fold(match string, events []*nostr.Event, seenAt map[string]int64) (*State, error) {
	byID := make(map[string]*nostr.Event, len(events))
	var challenge *nostr.Event
	reveals := map[string]*nostr.Event{}
	for _, ev := range events {
		if ev == nil {
			continue
		}
		if ev.ID == match && ev.Kind == nostr.KindChallenge {
			challenge = ev
			continue
		}
		if !nostr.CreatedAtInRange(ev.CreatedAt) {
			continue // dropped by section 1, even from a caller that never parsed it
		}
		if nostr.IsMatchKind(ev.Kind) && nostr.HasMatchTag(ev, match) {
			byID[ev.ID] = ev
		}
		if ev.Kind == nostr.KindReveal && nostr.HasMatchTag(ev, match) {
			reveals[ev.ID] = ev
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
	for _, ev := range reveals {
		s.Reveals = append(s.Reveals, ev)
	}
	sort.Slice(s.Reveals, func(i, j int) bool { return Less(s.Reveals[i], s.Reveals[j]) })
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
	if !nostr.CreatedAtInRange(ch.CreatedAt) {
		return nil, &NoMatchError{Why: fmt.Sprintf("challenge created_at %d is outside 0..%d (section 1)", ch.CreatedAt, nostr.MaxCreatedAt)}
	}
	if IsStub(ch) || nostr.TooLarge(ch) {
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

// challengeGame reads {"game": one of GameKinds} by exact key; other fields
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
	if err := json.Unmarshal(raw, &g); err != nil || !isGame(g) {
		return "", &NoMatchError{Why: "game is not " + KindList() + ": " + truncate(string(raw))}
	}
	return g, nil
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// ignore lists ev as ignored, and returns its entry for the caller to add
// the values its detail was made from.
func (s *State) ignore(ev *nostr.Event, token, format string, args ...any) *Ignored {
	s.ignores++
	s.Ignored = append(s.Ignored, Ignored{ID: ev.ID, Token: token, Detail: fmt.Sprintf(format, args...), at: int64(ev.CreatedAt)})
	return &s.Ignored[len(s.Ignored)-1]
}

// apply dispatches one event, in fold order, to its rule.
func (s *State) apply(ev *nostr.Event, seenAt int64) {
	if s.applyStatic(ev) {
		return
	}
	// Count ignores, not the list's length: an accept shortens the list
	// when it releases the held move.
	before := s.ignores
	defer func() {
		if s.ignores == before {
			if int64(ev.CreatedAt) > s.LastUsed {
				s.LastUsed = int64(ev.CreatedAt)
			}
			s.usedAt, s.usedID = int64(ev.CreatedAt), ev.ID
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
	s.finalAt = int64(ev.CreatedAt)
}

// applyStatic ignores what section 1 and the g-tag rule refuse whatever the
// state: an event too large, a g tag count other than one, or the stub the
// daemon keeps for such an event. It reports whether ev was ignored.
func (s *State) applyStatic(ev *nostr.Event) bool {
	if token, detail, ok := stubReason(ev); ok {
		s.ignore(ev, token, "%s", detail)
		return true
	}
	if token, detail, ok := staticReason(ev); ok {
		s.ignore(ev, token, "%s", detail)
		return true
	}
	return false
}

// staticReason is why ev is ignored in every match and at every point of
// the fold, if it is.
func staticReason(ev *nostr.Event) (token, detail string, ok bool) {
	if nostr.TooLarge(ev) {
		return IgnTooLarge, fmt.Sprintf("canonical serialization exceeds %d bytes", nostr.MaxEventSize), true
	}
	if ev.Kind != nostr.KindChallenge {
		if err := nostr.SingleG(ev); err != nil {
			return IgnBadG, err.(*nostr.TagError).Reason, true
		}
	}
	return "", "", false
}

// StubTag names the first tag of a stub: ["vesper-stub", token, detail].
const StubTag = "vesper-stub"

// StubMatches is how many of the matches an event names its stub keeps:
// the event is ignored in each, and one event naming thousands must not
// cost thousands of match listings.
const StubMatches = 64

// stubSig is a stub's signature: all zeros, which no BIP-340 check passes,
// so a stub can never be mistaken for a signed event, nor a signed event
// for a stub (section 1 drops it before any fold sees it).
var stubSig = strings.Repeat("0", 128)

// Stub returns the stand-in a store keeps instead of an event that every
// match ignores for what it is (over 65536 bytes, or a g tag count other
// than one), or nil when ev is not such an event. The stub keeps the id,
// author, kind and created_at, enough for the fold to list the event in
// its place with the same reason (section 2), and drops the body: one
// 10 MB move, or one event naming thousands of matches, then costs a few
// hundred bytes wherever it is stored or listed. Its other tags are g tags
// naming the first StubMatches distinct matches the event names.
func Stub(ev *nostr.Event) *nostr.Event {
	if ev == nil || IsStub(ev) {
		return nil
	}
	if ev.Kind != nostr.KindChallenge && !nostr.IsMatchKind(ev.Kind) {
		return nil
	}
	token, detail, ok := staticReason(ev)
	if !ok {
		return nil
	}
	tags := nostr.Tags{{StubTag, token, detail}}
	seen := map[string]bool{}
	for _, m := range nostr.MatchRefs(ev) {
		if len(seen) == StubMatches {
			break
		}
		if nostr.IsLowerHex(m, 64) && !seen[m] {
			seen[m] = true
			tags = append(tags, []string{nostr.MatchTag, m})
		}
	}
	return &nostr.Event{ID: ev.ID, PubKey: ev.PubKey, CreatedAt: ev.CreatedAt, Kind: ev.Kind,
		Tags: tags, Content: "", Sig: stubSig}
}

// IsStub reports whether ev is a stub made by Stub.
func IsStub(ev *nostr.Event) bool {
	return ev != nil && ev.Sig == stubSig && len(ev.Tags) >= 1 && len(ev.Tags[0]) == 3 && ev.Tags[0][0] == StubTag
}

func stubReason(ev *nostr.Event) (token, detail string, ok bool) {
	if !IsStub(ev) {
		return "", "", false
	}
	t := ev.Tags[0]
	switch t[1] {
	case IgnTooLarge, IgnBadG:
		return t[1], t[2], true
	}
	// A stub of a reason this build does not know (a newer store): still
	// ignored, never applied, since its body is gone.
	return IgnTooLarge, t[2], true
}

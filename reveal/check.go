package reveal

import (
	"fmt"
	"sort"

	"vesper/match"
	"vesper/nostr"
)

// Status is what a committing event's reasoning has become.
type Status string

// The statuses, each spelled here once.
const (
	// Unrevealed: committed, and no reveal by its author names it yet.
	Unrevealed Status = "unrevealed"
	// Verified: revealed by its author once the game was over, and the
	// hash matches.
	Verified Status = "verified"
	// Early: verified, but the first verified reveal came while the game
	// was live (the opponent could have read it).
	Early Status = "early"
	// Mismatch: its author revealed it, but no revealed text hashes to the
	// commitment; the text is never shown as the player's.
	Mismatch Status = "mismatch"
)

// MarshalText spells the status as JSON.
func (s Status) MarshalText() ([]byte, error) { return []byte(s), nil }

// Entry is one committing event: a move (4422) or result (4424) of the
// match carrying one reasoning tag.
type Entry struct {
	Event     string // the committing event
	Author    string
	Kind      int
	CreatedAt int64
	Hash      string // the committed hash, as written
	// Counted is false when the fold ignored the committing event: its
	// reasoning is still checked and shown with it, as ignored.
	Counted bool
	Status  Status
	// Text is the verified text (Verified or Early), "" otherwise.
	Text string
	// Reveal is the reveal event that first verified the entry, or for a
	// Mismatch the first that named it; RevealedAt is its created_at.
	Reveal     string
	RevealedAt int64
}

// Ignored is a reveal, or an entry of one, that names nothing it may.
type Ignored struct {
	Reveal string // the reveal event
	Event  string // the entry's committing event, "" for the whole reveal
	Reason string // "ignored: ..."
}

// Report is Check's answer.
type Report struct {
	Entries []Entry // one per committing event, in fold order
	Ignored []Ignored
}

// Entry returns the entry for a committing event.
func (r Report) Entry(id string) (Entry, bool) {
	for _, e := range r.Entries {
		if e.Event == id {
			return e, true
		}
	}
	return Entry{}, false
}

// Check checks the reveals among events against the committing events of
// st's match (section 8.2). st is the fold of the same match; its Events
// are used when set (a full fold), otherwise the match's events are taken
// from events. Reveals are kind 4427 events with one g tag naming the
// match; anything else in events is skipped.
func Check(st *match.State, events []*nostr.Event) Report {
	var rep Report
	ignored := map[string]bool{}
	for _, ig := range st.Ignored {
		ignored[ig.ID] = true
	}
	index := map[string]int{}
	for _, ev := range matchEvents(st, events) {
		if ev.Kind != nostr.KindMove && ev.Kind != nostr.KindResult {
			continue
		}
		h, ok := nostr.Reasoning(ev)
		if !ok {
			continue
		}
		if _, dup := index[ev.ID]; dup {
			continue
		}
		index[ev.ID] = len(rep.Entries)
		rep.Entries = append(rep.Entries, Entry{Event: ev.ID, Author: ev.PubKey, Kind: ev.Kind,
			CreatedAt: int64(ev.CreatedAt), Hash: h, Counted: !ignored[ev.ID], Status: Unrevealed})
	}
	rvs, bad := reveals(st.Match, events)
	rep.Ignored = append(rep.Ignored, bad...)
	for _, rv := range rvs {
		if nostr.TooLarge(rv) {
			rep.Ignored = append(rep.Ignored, Ignored{Reveal: rv.ID, Reason: fmt.Sprintf("ignored: reveal exceeds %d bytes", nostr.MaxEventSize)})
			continue
		}
		list, err := nostr.ParseReveal(rv.Content)
		if err != nil {
			rep.Ignored = append(rep.Ignored, Ignored{Reveal: rv.ID, Reason: "ignored: " + err.Error()})
			continue
		}
		early := IsEarly(st, int64(rv.CreatedAt))
		for _, re := range list {
			i, ok := index[re.Event]
			switch {
			case !ok:
				rep.Ignored = append(rep.Ignored, Ignored{Reveal: rv.ID, Event: re.Event, Reason: "ignored: not a committing event of the match"})
				continue
			case rep.Entries[i].Author != rv.PubKey:
				rep.Ignored = append(rep.Ignored, Ignored{Reveal: rv.ID, Event: re.Event, Reason: "ignored: revealed by another key than the event's author"})
				continue
			}
			rep.Entries[i].apply(rv, re, early)
		}
	}
	return rep
}

// apply folds one reveal entry into e. Reveals come in (created_at, id)
// order, so the first verified reveal decides between Verified and Early:
// a later, timely reveal cannot undo that the text was public during the
// game.
func (e *Entry) apply(rv *nostr.Event, re nostr.RevealEntry, early bool) {
	if e.Status == Verified || e.Status == Early {
		return
	}
	if nostr.ReasoningHash(re.Salt, re.Text) != e.Hash {
		if e.Status == Unrevealed {
			e.Status, e.Reveal, e.RevealedAt = Mismatch, rv.ID, int64(rv.CreatedAt)
		}
		return
	}
	e.Status, e.Text, e.Reveal, e.RevealedAt = Verified, re.Text, rv.ID, int64(rv.CreatedAt)
	if early {
		e.Status = Early
	}
}

// IsEarly reports whether a reveal stamped at createdAt is early (section
// 8.2): the game is not over, or the reveal is stamped before the event
// that ended it. A reveal in the same second as the end is not early:
// "before" is strictly before.
func IsEarly(st *match.State, createdAt int64) bool {
	return !st.Over || createdAt < st.EndedAt
}

func matchEvents(st *match.State, events []*nostr.Event) []*nostr.Event {
	if st.Events != nil {
		return st.Events
	}
	var out []*nostr.Event
	for _, ev := range events {
		if ev != nil && nostr.IsMatchKind(ev.Kind) && nostr.HasMatchTag(ev, st.Match) {
			out = append(out, ev)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return match.Less(out[i], out[j]) })
	return out
}

// reveals returns the match's reveals, each once, in (created_at, id)
// order, so that the report does not depend on the order of events. A
// reveal naming the match among several g tags is not read (a reveal is
// "tagged ["g", <match id>]", and section 1 reads g as exactly one tag);
// it is listed as ignored so its author can see why.
func reveals(matchID string, events []*nostr.Event) (out []*nostr.Event, bad []Ignored) {
	seen := map[string]bool{}
	for _, ev := range events {
		if ev == nil || ev.Kind != nostr.KindReveal || seen[ev.ID] || !nostr.HasMatchTag(ev, matchID) {
			continue
		}
		seen[ev.ID] = true
		if err := nostr.SingleG(ev); err != nil {
			bad = append(bad, Ignored{Reveal: ev.ID, Reason: "ignored: " + err.(*nostr.TagError).Reason})
			continue
		}
		out = append(out, ev)
	}
	sort.Slice(out, func(i, j int) bool { return match.Less(out[i], out[j]) })
	sort.Slice(bad, func(i, j int) bool { return bad[i].Reveal < bad[j].Reveal })
	return out, bad
}

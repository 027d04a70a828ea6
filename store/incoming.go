// The checks an event passes on its way in: once at the ingest edge
// (Classify), else in PutEvents, so no row is written that reads back as
// another event.

package store

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	"vesper/nostr"
)

// Incoming is one received event for PutEvents.
type Incoming struct {
	Event  *nostr.Event
	Raw    []byte // the JSON to keep; nil means nostr.MarshalEvent(Event)
	Relay  string // "" records no relay (an event the daemon made itself)
	SeenAt int64
	// Matches, when not nil, are the matches the event belongs to, in
	// place of MatchesOf(Event). Classify sets them.
	Matches []string

	// checked is the Event Classify checked (Raw and Matches set from
	// it): PutEvents and HoldChallenges check nothing of it again. An
	// Incoming whose Event was replaced since is checked again.
	checked *nostr.Event
}

// Classify checks an event for the store where it comes in (the daemon's
// ingest edge, issue 39 item 4: the one place its fields are checked and
// its matches derived), and returns it with Raw and Matches set: every
// later step reads those, and PutEvents and HoldChallenges take it as it
// is. The error says why the store would refuse it: a malformed id,
// pubkey, signature or match id, a negative seen_at, or Raw that does not
// hold the event.
func Classify(in Incoming) (Incoming, error) {
	r, err := checkIncoming(in)
	if err != nil {
		return in, err
	}
	in.Raw, in.Matches, in.checked = r.raw, r.matches, r.ev
	return in, nil
}

// Classified says whether in is as Classify returned it.
func (in Incoming) Classified() bool { return in.checked != nil && in.checked == in.Event }

// row is in as PutEvents writes it, checked unless Classify has.
func (in Incoming) row() (incomingRow, error) {
	if in.Classified() {
		return incomingRow{ev: in.Event, raw: in.Raw, relay: in.Relay, seenAt: in.SeenAt, matches: in.Matches}, nil
	}
	return checkIncoming(in)
}

type incomingRow struct {
	ev      *nostr.Event
	raw     []byte
	relay   string
	seenAt  int64
	matches []string
}

// checkIncoming makes sure what is written can be read back as the event
// the caller verified. Raw is written as given, so it must hold that
// event. Raw that is nostr.MarshalEvent(Event), and a nil Raw, for which
// the store writes that itself, is not parsed: it parses back to Event
// whenever readsBack(Event) holds, so only that is checked. Other bytes (a
// relay's own spelling of the event) are parsed, strictly as at ingest.
func checkIncoming(in Incoming) (incomingRow, error) {
	ev := in.Event
	if err := checkIDs(ev); err != nil {
		return incomingRow{}, err
	}
	if in.SeenAt < 0 {
		return incomingRow{}, fmt.Errorf("store: event %s: negative seen_at %d", ev.ID, in.SeenAt)
	}
	raw := in.Raw
	var marshaled []byte
	if err := readsBack(ev); err == nil {
		marshaled = nostr.MarshalEvent(ev)
	} else if raw == nil {
		return incomingRow{}, err
	}
	if marshaled != nil && (raw == nil || bytes.Equal(raw, marshaled)) {
		raw = marshaled
	} else {
		parsed, err := nostr.ParseEvent(raw)
		if err != nil {
			return incomingRow{}, fmt.Errorf("store: event %s: raw: %w", ev.ID, err)
		}
		if !sameEvent(parsed, ev) {
			return incomingRow{}, fmt.Errorf("store: event %s: raw bytes hold another event (%s)", ev.ID, parsed.ID)
		}
	}
	matches := in.Matches
	if matches == nil {
		matches = MatchesOf(ev) // 64-hex, each once, by construction
	}
	for _, m := range in.Matches {
		if !nostr.IsLowerHex(m, 64) {
			return incomingRow{}, fmt.Errorf("store: event %s: malformed match id %q", ev.ID, m)
		}
	}
	return incomingRow{ev: ev, raw: raw, relay: in.Relay, seenAt: in.SeenAt, matches: matches}, nil
}

// readsBack says why nostr.MarshalEvent(ev) would not parse back to ev, if
// it would not, for an event that passed checkIDs: nostr.ParseEvent takes
// created_at without a sign and at most nostr.MaxCreatedAt, and reads invalid UTF-8 as U+FFFD. Every
// event nostr.ParseEvent returns passes.
func readsBack(ev *nostr.Event) error {
	if !nostr.CreatedAtInRange(ev.CreatedAt) {
		return fmt.Errorf("store: event %s: created_at %d outside 0..%d", ev.ID, ev.CreatedAt, nostr.MaxCreatedAt)
	}
	if !utf8.ValidString(ev.Content) {
		return fmt.Errorf("store: event %s: content is not UTF-8", ev.ID)
	}
	for i, t := range ev.Tags {
		for _, v := range t {
			if !utf8.ValidString(v) {
				return fmt.Errorf("store: event %s: tag %d is not UTF-8", ev.ID, i)
			}
		}
	}
	return nil
}

// sameEvent compares every field: bytes with the event's id and signature
// but, say, another content would be read back as an event whose id is
// not its hash.
func sameEvent(a, b *nostr.Event) bool {
	if a.ID != b.ID || a.PubKey != b.PubKey || a.Sig != b.Sig || a.Kind != b.Kind ||
		a.CreatedAt != b.CreatedAt || a.Content != b.Content || len(a.Tags) != len(b.Tags) {
		return false
	}
	for i := range a.Tags {
		if !slices.Equal(a.Tags[i], b.Tags[i]) {
			return false
		}
	}
	return true
}

// checkIDs rejects what cannot be a verified event, so a caller's slip does
// not end up as a row that every later reader trips over.
func checkIDs(ev *nostr.Event) error {
	switch {
	case ev == nil:
		return errors.New("store: nil event")
	case !nostr.IsLowerHex(ev.ID, 64):
		return fmt.Errorf("store: malformed event id %q", ev.ID)
	case !nostr.IsLowerHex(ev.PubKey, 64):
		return fmt.Errorf("store: event %s: malformed pubkey %q", ev.ID, ev.PubKey)
	case !nostr.IsLowerHex(ev.Sig, 128):
		return fmt.Errorf("store: event %s: unsigned", ev.ID)
	}
	return nil
}

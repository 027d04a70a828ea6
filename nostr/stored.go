package nostr

import (
	"bytes"
	"unicode/utf8"

	gn "github.com/nbd-wtf/go-nostr"
)

// ParseStored decodes an event's bytes as the store keeps them, with
// ParseEvent's result: the same event, or ParseEvent's error. The store
// almost always keeps MarshalEvent's spelling, which go-nostr's generated
// decoder reads about three times faster than ParseEvent's strict one, and
// a site build or a start reads every event of the matches it folds. The
// fast decoder's answer is taken only when it marshals back to exactly
// raw and raw is UTF-8: bytes in MarshalEvent's form carry each member
// once, in order, with nothing for two decoders to read differently (a
// lone surrogate would not marshal back the same, and a byte that is not
// UTF-8, which ParseEvent reads as U+FFFD and go-nostr keeps, is ruled
// out first). Anything else, including
// a relay's own spelling, is parsed strictly.
//
// One difference from ParseEvent: a created_at above MaxCreatedAt is read.
// A store written before section 1's bound was drawn may hold such an
// event; failing to read it would fail every read of its match, which a
// stranger's one event must not do. The fold drops it (match.Fold), as
// ParseEvent would have, and the store takes no new one (PutEvent).
func ParseStored(raw []byte) (*Event, error) {
	ev := &Event{}
	if utf8.Valid(raw) && ev.UnmarshalJSON(raw) == nil && IsLowerHex(ev.ID, 64) && IsLowerHex(ev.PubKey, 64) &&
		IsLowerHex(ev.Sig, 128) && bytes.Equal(MarshalEvent(ev), raw) {
		// ParseEvent's tags are never nil, outer or inner.
		if ev.Tags == nil {
			ev.Tags = Tags{}
		}
		for i, t := range ev.Tags {
			if t == nil {
				ev.Tags[i] = gn.Tag{}
			}
		}
		return ev, nil
	}
	return parseEvent(raw, false)
}

package site

import (
	"strconv"

	"vesper/match"
	"vesper/nostr"
)

// matchJSON renders the match.json of PROTOCOL.md section 6: the events
// exactly as signed (nostr.MarshalEvent: canonical escaping, no HTML
// escaping, so ids and signatures still check), in fold order, one per line;
// the seen_at entries this verifier holds for them; and the summary at now.
// A stub (an oversized event whose body was not kept, match.Stub) is in the
// summary's ignored list but not among the events, as in `vesper export`:
// its body is gone, and it would not verify.
//
// The match's reveals (section 8.2, State.Reveals) are among the events,
// placed by (created_at, id) after the challenge like the others: the fold
// skips them, so the summary is the same, and anyone can check a
// commitment against the signed move beside it from this file alone.
func matchJSON(s *match.State, seenAt map[string]int64, now int64) []byte {
	events := make([]*nostr.Event, 0, len(s.Events)+len(s.Reveals))
	for _, ev := range s.FileEvents() {
		if !match.IsStub(ev) {
			events = append(events, ev)
		}
	}
	b := make([]byte, 0, 1024*len(events))
	b = append(b, `{"match":`...)
	b = nostr.AppendString(b, s.Match)
	b = append(b, ",\n\"events\":["...)
	for i, ev := range events {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '\n')
		b = append(b, nostr.MarshalEvent(ev)...)
	}
	b = append(b, "],\n\"seen_at\":{"...)
	first := true
	for _, ev := range events {
		t, ok := seenAt[ev.ID]
		if !ok {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = nostr.AppendString(b, ev.ID)
		b = append(b, ':')
		b = strconv.AppendInt(b, t, 10)
	}
	b = append(b, "},\n\"summary\":"...)
	b = append(b, match.MarshalLine(s.Summary(now))...) // ends in a newline
	b = b[:len(b)-1]
	b = append(b, "}\n"...)
	return b
}

package site

import (
	"strconv"

	"vesper/match"
	"vesper/reveal"
)

func reasoningPath(id string) string { return "m/" + id + ".reasoning.json" }

// reasoningJSON is m/<id>.reasoning.json: the reveal check of every
// committing event, with fixed key order and encoding/json's string
// escaping (<, > and & too, as analysis.json: no browser takes it for a
// page), so the same events give the same bytes. The text of a verified reasoning
// is included only once the game is over, as on the page.
func reasoningJSON(s *match.State, rep reveal.Report, sans []string) []byte {
	ply := map[string]int{}
	for i, id := range s.MoveEvents {
		ply[id] = i + 1
	}
	b := []byte(`{"match":`)
	b = appendString(b, s.Match)
	b = append(b, `,"over":`...)
	b = strconv.AppendBool(b, s.Over)
	b = appendField(b, "plan_rule", planRule)
	b = append(b, ",\n\"entries\":["...)
	for i, e := range rep.Entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '\n')
		b = appendReasoningEntry(b, s, e, ply[e.Event], sans)
	}
	b = append(b, "],\n\"ignored\":["...)
	for i, ig := range rep.Ignored {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n{\"reveal\":"...)
		b = appendString(b, ig.Reveal)
		b = appendStringOrNull(b, "event", ig.Event)
		b = appendField(b, "reason", ig.Reason)
		b = append(b, '}')
	}
	return append(b, "]}\n"...)
}

// appendReasoningEntry writes one committing event's check; n is its ply
// when it is a counted move, else 0. Its text, and whether it names the
// move, are shown only once the game is over.
func appendReasoningEntry(b []byte, s *match.State, e reveal.Entry, n int, sans []string) []byte {
	b = append(b, `{"event":`...)
	b = appendString(b, e.Event)
	b = appendField(b, "author", e.Author)
	b = appendInt(b, "kind", int64(e.Kind))
	b = append(b, `,"counted":`...)
	b = strconv.AppendBool(b, e.Counted)
	b = appendField(b, "hash", e.Hash)
	b = appendField(b, "status", string(e.Status))
	b = appendStringOrNull(b, "reveal", e.Reveal)
	if n > 0 {
		b = appendInt(b, "ply", int64(n))
	} else {
		b = append(b, `,"ply":null`...)
	}
	shown := s.Over && (e.Status == reveal.Verified || e.Status == reveal.Early)
	if shown {
		b = appendField(b, "text", e.Text)
	} else {
		b = append(b, `,"text":null`...)
	}
	b = append(b, `,"names_move":`...)
	if shown && n > 0 && n <= len(sans) && e.Counted {
		b = strconv.AppendBool(b, names(s, n, sans, e.Text))
	} else {
		b = append(b, "null"...)
	}
	return append(b, '}')
}

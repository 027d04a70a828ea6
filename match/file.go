package match

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"

	"vesper/nostr"
	"vesper/nostr/batch"
)

// File is a match.json (section 6) as read from disk.
type File struct {
	Match  string // "" when absent or null
	Events []*nostr.Event
	SeenAt map[string]int64
	// Dropped counts events refused by section 1 (malformed, bad id or
	// signature): not events of the match, never listed.
	Dropped int
}

// ErrNotMatchFile is returned for JSON that is not a match.json object.
var ErrNotMatchFile = errors.New("not a match.json object")

// ParseFile reads a match.json: events are checked (section 1) and those
// that fail are dropped silently; seen_at entries that are not
// numbers are skipped, so the event's created_at stands in.
func ParseFile(data []byte) (*File, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, err
	}
	if top == nil {
		return nil, ErrNotMatchFile
	}
	f := &File{SeenAt: map[string]int64{}}
	if raw, ok := top["match"]; ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		if err := json.Unmarshal(raw, &f.Match); err != nil {
			return nil, errors.New(`"match" is not a string`)
		}
	}
	var events []json.RawMessage
	if raw, ok := top["events"]; ok {
		if err := json.Unmarshal(raw, &events); err != nil {
			return nil, errors.New(`"events" is not an array`)
		}
	}
	parsed := make([]*nostr.Event, 0, len(events))
	for _, raw := range events {
		ev, err := nostr.ParseEvent(raw)
		if err != nil {
			f.Dropped++
			continue
		}
		parsed = append(parsed, ev)
	}
	// The signatures of a file are checked together: one batch equation
	// is several times cheaper per signature than checking each alone,
	// and gives the same answers.
	for i, ok := range batch.Events(parsed) {
		if !ok || !parsed[i].CheckID() {
			f.Dropped++
			continue
		}
		f.Events = append(f.Events, parsed[i])
	}
	var seen map[string]json.RawMessage
	if raw, ok := top["seen_at"]; ok {
		_ = json.Unmarshal(raw, &seen) // anything but an object: no seen_at at all
	}
	for id, raw := range seen {
		if v, ok := jsonNumber(raw); ok {
			f.SeenAt[id] = v
		}
	}
	return f, nil
}

// jsonNumber reads a JSON number as whole seconds (a fraction is truncated
// toward minus infinity, like a timestamp; exponents are allowed).
func jsonNumber(raw json.RawMessage) (int64, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || !(raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
		return 0, false
	}
	if v, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return v, true
	}
	fv, err := strconv.ParseFloat(string(raw), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) || fv != fv {
		return 0, false
	}
	// Beyond any real timestamp, a number still counts: clamp it so the
	// comparisons of rule 5 and of "now" come out as they would unclamped.
	const limit = 1 << 60
	if fv > limit {
		return limit, true
	}
	if fv < -limit {
		return -limit, true
	}
	i := int64(fv)
	if float64(i) > fv {
		i--
	}
	return i, true
}

// Now is the offline "now" of section 6: the largest seen_at (or created_at
// where missing) of the match's events.
func (f *File) Now(s *State) int64 {
	var now int64
	for _, ev := range s.Events {
		t, ok := f.SeenAt[ev.ID]
		if !ok {
			t = int64(ev.CreatedAt)
		}
		if t > now {
			now = t
		}
	}
	return now
}

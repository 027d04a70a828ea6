package nostr

import (
	"strconv"
	"strings"
	"unicode/utf8"

	gn "github.com/nbd-wtf/go-nostr"
)

// ParseStored decodes an event's bytes as the store keeps them, with
// ParseEvent's result: the same event, or ParseEvent's error. The store
// almost always keeps MarshalEvent's spelling, and a site build or a start
// reads every event of the matches it folds, so bytes in exactly that
// spelling are decoded by parseCanonical, which reads only that grammar:
// each member once, in MarshalEvent's order, its escapes and nothing else,
// so the event it gives marshals back to raw and two decoders cannot read
// it differently (raw must be UTF-8 first: ParseEvent reads a byte that is
// not as U+FFFD). Anything else, including a relay's own spelling, is
// parsed strictly.
//
// One difference from ParseEvent: a created_at above MaxCreatedAt is read.
// A store written before section 1's bound was drawn may hold such an
// event; failing to read it would fail every read of its match, which a
// stranger's one event must not do. The fold drops it (match.Fold), as
// ParseEvent would have, and the store takes no new one (PutEvent).
func ParseStored(raw []byte) (*Event, error) {
	if utf8.Valid(raw) {
		if ev, ok := parseCanonical(raw); ok {
			return ev, nil
		}
	}
	return parseEvent(raw, false)
}

// parseCanonical decodes raw when it is MarshalEvent's output for some
// event, and reports false for anything else. It copies raw into one
// string that the event's hex fields and unescaped strings share (most
// strings of a stored event hold no escape), instead of a string each.
func parseCanonical(raw []byte) (*Event, bool) {
	c := canon{s: string(raw), raw: raw}
	ev := &Event{}
	var ok bool
	if !c.lit(`{"id":"`) {
		return nil, false
	}
	if ev.ID, ok = c.hex(64); !ok || !c.lit(`","pubkey":"`) {
		return nil, false
	}
	if ev.PubKey, ok = c.hex(64); !ok || !c.lit(`","created_at":`) {
		return nil, false
	}
	at, ok := c.int(false)
	if !ok || !c.lit(`,"kind":`) {
		return nil, false
	}
	ev.CreatedAt = Timestamp(at)
	kind, ok := c.int(true)
	if !ok || !c.lit(`,"tags":[`) {
		return nil, false
	}
	ev.Kind = int(kind)
	// ParseEvent's tags are never nil, outer or inner.
	ev.Tags = Tags{}
	for !c.lit("]") {
		if len(ev.Tags) > 0 && !c.lit(",") {
			return nil, false
		}
		if !c.lit("[") {
			return nil, false
		}
		tag := gn.Tag{}
		for !c.lit("]") {
			if len(tag) > 0 && !c.lit(",") {
				return nil, false
			}
			v, ok := c.str()
			if !ok {
				return nil, false
			}
			tag = append(tag, v)
		}
		ev.Tags = append(ev.Tags, tag)
	}
	if !c.lit(`,"content":`) {
		return nil, false
	}
	if ev.Content, ok = c.str(); !ok || !c.lit(`,"sig":"`) {
		return nil, false
	}
	if ev.Sig, ok = c.hex(128); !ok || !c.lit(`"}`) || c.i != len(c.s) {
		return nil, false
	}
	return ev, true
}

// canon reads MarshalEvent's grammar from s at i. raw is the same bytes,
// for the escape decoder, which works on bytes.
type canon struct {
	s   string
	raw []byte
	i   int
}

// lit consumes lit when s continues with it.
func (c *canon) lit(lit string) bool {
	if !strings.HasPrefix(c.s[c.i:], lit) {
		return false
	}
	c.i += len(lit)
	return true
}

// hex consumes n lowercase hex digits.
func (c *canon) hex(n int) (string, bool) {
	if len(c.s)-c.i < n || !IsLowerHex(c.s[c.i:c.i+n], n) {
		return "", false
	}
	c.i += n
	return c.s[c.i-n : c.i], true
}

// int consumes an integer as strconv.AppendInt writes it: no leading zero,
// no "-0", a minus sign only when signed.
func (c *canon) int(signed bool) (int64, bool) {
	start := c.i
	if signed && c.i < len(c.s) && c.s[c.i] == '-' {
		c.i++
	}
	digits := c.i
	for c.i < len(c.s) && c.s[c.i] >= '0' && c.s[c.i] <= '9' {
		c.i++
	}
	switch {
	case c.i == digits:
		return 0, false
	case c.s[digits] == '0' && (c.i-digits > 1 || digits > start):
		return 0, false
	}
	v, err := strconv.ParseInt(c.s[start:c.i], 10, 64)
	return v, err == nil
}

// str consumes a string literal as AppendString writes it: the two-letter
// escapes it uses, \u00XX for the other control characters (lowercase
// hex), every other byte as itself.
func (c *canon) str() (string, bool) {
	if !c.lit(`"`) {
		return "", false
	}
	start := c.i
	for c.i < len(c.s) {
		switch ch := c.s[c.i]; {
		case ch == '"':
			c.i++
			return c.s[start : c.i-1], true
		case ch == '\\':
			return c.escaped(start)
		case ch < 0x20:
			return "", false
		}
		c.i++
	}
	return "", false
}

// escaped finishes a string literal begun at start that holds an escape
// at i, decoding it into a new string with the package's one decoder,
// which refuses any spelling AppendString does not write.
func (c *canon) escaped(start int) (string, bool) {
	b := append(make([]byte, 0, c.i-start+16), c.raw[start:c.i]...)
	b, end, ok := appendUnquoted(b, c.raw, c.i, true)
	if !ok {
		return "", false
	}
	c.i = end
	return string(b), true
}

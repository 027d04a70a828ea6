package nostr

import "strconv"

// TooLarge reports whether the canonical serialization exceeds the cap.
func TooLarge(ev *Event) bool { return SerializedLen(ev) > MaxEventSize }

// SerializedLen is len(ev.Serialize()), the size PROTOCOL.md section 1
// caps, counted without building the serialization: the daemon checks the
// size of every event it receives and the fold of every event it folds,
// and a serialization allocates as much as the event again.
func SerializedLen(ev *Event) int {
	// [0,"<pubkey>",<created_at>,<kind>,[<tags>],<content>]
	n := len(`[0,"",,,[],]`) + len(ev.PubKey) + intLen(int64(ev.CreatedAt)) + intLen(int64(ev.Kind)) +
		quotedLen(ev.Content)
	for i, t := range ev.Tags {
		if i > 0 {
			n++ // ,
		}
		n += 2 // []
		for j, v := range t {
			if j > 0 {
				n++
			}
			n += quotedLen(v)
		}
	}
	return n
}

// intLen is len(strconv.FormatInt(v, 10)).
func intLen(v int64) int {
	n, u := 1, uint64(v)
	if v < 0 {
		n, u = 2, -u // -u is |v| in uint64, even for the smallest int64
	}
	for ; u >= 10; u /= 10 {
		n++
	}
	return n
}

// quotedLen is the length of s as a JSON string escaped the NIP-01 way
// (AppendString, go-nostr's serialization): quote and backslash and the
// five control characters with a short escape take two bytes, the other
// control characters six (\u00XX), every other byte one.
func quotedLen(s string) int {
	n := len(s) + 2
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		switch c {
		case '"', '\\', '\b', '\t', '\n', '\f', '\r':
			n++
		default:
			n += 5
		}
	}
	return n
}

// MarshalEvent writes an event as JSON with no HTML escaping, so the bytes
// keep the strings exactly as signed.
func MarshalEvent(ev *Event) []byte {
	b := make([]byte, 0, 256+len(ev.Content))
	b = append(b, `{"id":"`...)
	b = append(b, ev.ID...)
	b = append(b, `","pubkey":"`...)
	b = append(b, ev.PubKey...)
	b = append(b, `","created_at":`...)
	b = strconv.AppendInt(b, int64(ev.CreatedAt), 10)
	b = append(b, `,"kind":`...)
	b = strconv.AppendInt(b, int64(ev.Kind), 10)
	b = append(b, `,"tags":`...)
	b = AppendTags(b, ev.Tags)
	b = append(b, `,"content":`...)
	b = AppendString(b, ev.Content)
	b = append(b, `,"sig":"`...)
	b = append(b, ev.Sig...)
	b = append(b, `"}`...)
	return b
}

// AppendTags appends tags as a JSON array with canonical string escaping.
func AppendTags(b []byte, tags Tags) []byte {
	b = append(b, '[')
	for i, t := range tags {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		for j, s := range t {
			if j > 0 {
				b = append(b, ',')
			}
			b = AppendString(b, s)
		}
		b = append(b, ']')
	}
	return append(b, ']')
}

// hexDigits spell a control character's \u00XX escape (lowercase, as
// NIP-01 serializations write it).
const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string escaped the NIP-01 way.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\b':
			b = append(b, '\\', 'b')
		case '\t':
			b = append(b, '\\', 't')
		case '\n':
			b = append(b, '\\', 'n')
		case '\f':
			b = append(b, '\\', 'f')
		case '\r':
			b = append(b, '\\', 'r')
		default:
			if c < 0x20 {
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			} else {
				b = append(b, c)
			}
		}
	}
	return append(b, '"')
}

package nostr

import "encoding/json"

// The event parser splits an event's JSON into its top-level members and
// the tags into their elements. encoding/json does that by decoding into
// map[string]json.RawMessage and []json.RawMessage, but re-validates every
// nested value it hands back, which made parsing most of the cost of
// re-folding a stored match. These scanners split a document that
// json.Valid has already accepted, so they only have to find where each
// value ends; the results are the ones encoding/json gives.

// objectMembers splits a valid JSON document whose top level is an object
// into its members, the last of repeated keys winning as with encoding/json.
// It reports false when the top level is not an object.
func objectMembers(doc []byte) (map[string]json.RawMessage, bool) {
	i := skipSpace(doc, 0)
	if i >= len(doc) || doc[i] != '{' {
		return nil, false
	}
	out := make(map[string]json.RawMessage, 8)
	i = skipSpace(doc, i+1)
	if i < len(doc) && doc[i] == '}' {
		return out, true
	}
	for i < len(doc) {
		end := skipValue(doc, i) // the key, a string
		key, ok := plainString(doc[i:end])
		if !ok {
			if key, ok = unquote(doc[i:end]); !ok {
				return nil, false
			}
		}
		i = skipSpace(doc, end)
		i = skipSpace(doc, i+1) // past ':'
		end = skipValue(doc, i)
		out[key] = doc[i:end:end]
		i = skipSpace(doc, end)
		if i >= len(doc) || doc[i] == '}' {
			break
		}
		i = skipSpace(doc, i+1) // past ','
	}
	return out, true
}

// arrayElems splits a valid JSON value that is an array into its elements;
// false when it is not an array.
func arrayElems(v []byte) ([]json.RawMessage, bool) { return SplitArray(v) }

// SplitArray splits a JSON array, such as a relay message, into its
// elements in one pass and without decoding them: the elements are slices
// of doc. It checks the array's own syntax (brackets, commas, nothing but
// space after it) and finds where each element ends, but leaves checking
// the elements to whoever decodes them (ParseEvent, json.Unmarshal,
// json.Valid), so that the bytes of an event in a relay's EVENT message are
// run through one parser only. doc is valid JSON exactly when SplitArray
// reports true and every element is valid JSON; then the elements are the
// ones encoding/json gives. It reports false when the top level is not an
// array or is malformed.
func SplitArray(doc []byte) ([]json.RawMessage, bool) {
	i := skipSpace(doc, 0)
	if i >= len(doc) || doc[i] != '[' {
		return nil, false
	}
	out := []json.RawMessage{}
	i = skipSpace(doc, i+1)
	if i < len(doc) && doc[i] == ']' {
		return out, skipSpace(doc, i+1) == len(doc)
	}
	for i < len(doc) {
		end := skipValue(doc, i)
		if end == i {
			return nil, false // a comma or bracket where an element should be
		}
		out = append(out, doc[i:end:end])
		i = skipSpace(doc, end)
		if i >= len(doc) {
			break
		}
		switch doc[i] {
		case ']':
			return out, skipSpace(doc, i+1) == len(doc)
		case ',':
			i = skipSpace(doc, i+1)
		default:
			return nil, false
		}
	}
	return nil, false // unterminated
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index just past the valid JSON value at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	// A number, true, false or null: up to the next delimiter.
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// skipString returns the index just past the string literal at b[i], or
// len(b) for one that does not end (SplitArray meets those).
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b) // not i: a backslash at the end steps past it
}

package nostr

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	gn "github.com/nbd-wtf/go-nostr"
)

// Event is go-nostr's event: the protocol adds rules, not fields, so the
// relay client, the store and the fold share one type.
type Event = gn.Event

// Tags is go-nostr's tag list.
type Tags = gn.Tags

// Timestamp is go-nostr's unix-seconds type.
type Timestamp = gn.Timestamp

// MaxCreatedAt is the largest created_at section 1 accepts: 2^53-1,
// JavaScript's Number.MAX_SAFE_INTEGER, the last integer every JSON reader
// reads as written (RFC 8259 section 6). Above it a verifier in JavaScript
// (nostr-tools) reads another number than the one signed: it rejects the
// id of some events Go reads exactly (9007199254740993), accepts others
// with a value that differs from the literal (9223372036854775000 reads as
// ...4784) and accepts literals no int64 holds (9223372036854776000), so
// no arithmetic on int64, saturating or not, could agree with it there.
// Below it every reader agrees on the value, and no sum of the protocol's
// durations overflows an int64.
const MaxCreatedAt = 1<<53 - 1

// CreatedAtInRange reports whether t is a created_at section 1 accepts:
// 0 to MaxCreatedAt.
func CreatedAtInRange(t Timestamp) bool { return t >= 0 && t <= MaxCreatedAt }

// ParseEvent decodes one event strictly (PROTOCOL.md section 1). It checks
// form only; Verify checks id and signature. Repeated keys keep the last
// value, as Go's and JavaScript's parsers do.
func ParseEvent(raw []byte) (*Event, error) { return parseEvent(raw, true) }

// parseEvent is ParseEvent, with the created_at bound only when bounded:
// ParseStored reads bytes stored before the bound was drawn.
func parseEvent(raw []byte, bounded bool) (*Event, error) {
	if !json.Valid(raw) {
		return nil, &ParseError{Reason: "not a JSON object"}
	}
	obj, ok := objectMembers(raw)
	if !ok {
		return nil, &ParseError{Reason: "not a JSON object"}
	}
	ev := &Event{}
	var err error
	if ev.ID, err = hexField(obj, "id", 64); err != nil {
		return nil, err
	}
	if ev.PubKey, err = hexField(obj, "pubkey", 64); err != nil {
		return nil, err
	}
	if ev.Sig, err = hexField(obj, "sig", 128); err != nil {
		return nil, err
	}
	ca, err := intField(obj, "created_at", false)
	if err != nil {
		return nil, err
	}
	ev.CreatedAt = Timestamp(ca)
	if bounded && !CreatedAtInRange(ev.CreatedAt) {
		return nil, &ParseError{Field: "created_at", Reason: "above 2^53-1 (9007199254740991), beyond the integers every JSON reader reads exactly"}
	}
	k, err := intField(obj, "kind", true)
	if err != nil {
		return nil, err
	}
	ev.Kind = int(k)
	if ev.Content, err = stringField(obj, "content"); err != nil {
		return nil, err
	}
	if ev.Tags, err = tagsField(obj); err != nil {
		return nil, err
	}
	return ev, nil
}

func stringField(obj map[string]json.RawMessage, name string) (string, error) {
	raw, ok := obj[name]
	if !ok {
		return "", &ParseError{Field: name, Reason: "missing"}
	}
	return decodeString(raw, name)
}

// decodeString decodes a JSON string literal, refusing lone UTF-16
// surrogates, which encoding/json would silently replace with U+FFFD.
func decodeString(raw json.RawMessage, field string) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return "", &ParseError{Field: field, Reason: "not a string"}
	}
	if s, ok := plainString(raw); ok {
		return s, nil
	}
	if hasLoneSurrogate(raw) {
		return "", &ParseError{Field: field, Reason: "lone UTF-16 surrogate"}
	}
	if s, ok := unquote(raw); ok {
		return s, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", &ParseError{Field: field, Reason: "not a string"}
	}
	return s, nil
}

// plainString is the fast path of decodeString for a literal without
// escapes, control characters or invalid UTF-8 (ids, keys, signatures,
// most tags and contents): its value is its bytes, as encoding/json would
// decode them. Anything else takes the full decoder.
func plainString(lit []byte) (string, bool) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return "", false
	}
	body := lit[1 : len(lit)-1]
	for _, c := range body {
		if c == '\\' || c == '"' || c < 0x20 {
			return "", false
		}
	}
	if !utf8.Valid(body) {
		return "", false
	}
	return string(body), true
}

func hexField(obj map[string]json.RawMessage, name string, n int) (string, error) {
	s, err := stringField(obj, name)
	if err != nil {
		return "", err
	}
	if !IsLowerHex(s, n) {
		return "", &ParseError{Field: name, Reason: strconv.Itoa(n) + " lowercase hex expected"}
	}
	return s, nil
}

// IsLowerHex reports whether s is exactly n lowercase hex digits. A table
// rather than two range tests: every stored event read checks 256 digits
// (id, pubkey, sig), and a full site build reads each twice.
func IsLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !lowerHexDigit[s[i]] {
			return false
		}
	}
	return true
}

// lowerHexDigit marks '0'-'9' and 'a'-'f'.
var lowerHexDigit = func() (t [256]bool) {
	for _, c := range "0123456789abcdef" {
		t[c] = true
	}
	return t
}()

// intField reads an integer literal: digits with an optional minus sign
// (when signed), no fraction, no exponent.
func intField(obj map[string]json.RawMessage, name string, signed bool) (int64, error) {
	raw, ok := obj[name]
	if !ok {
		return 0, &ParseError{Field: name, Reason: "missing"}
	}
	raw = bytes.TrimSpace(raw)
	s := string(raw)
	digits := s
	if signed && len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 {
		return 0, &ParseError{Field: name, Reason: "not an integer literal"}
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, &ParseError{Field: name, Reason: "not an integer literal"}
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, &ParseError{Field: name, Reason: "integer out of range"}
	}
	return v, nil
}

func tagsField(obj map[string]json.RawMessage) (Tags, error) {
	raw, ok := obj["tags"]
	if !ok {
		return nil, &ParseError{Field: "tags", Reason: "missing"}
	}
	// raw is a member of a document json.Valid accepted.
	outer, ok := arrayElems(raw)
	if !ok {
		return nil, &ParseError{Field: "tags", Reason: "not an array of arrays of strings"}
	}
	tags := make(Tags, 0, len(outer))
	for _, t := range outer {
		inner, ok := arrayElems(t)
		if !ok {
			return nil, &ParseError{Field: "tags", Reason: "not an array of arrays of strings"}
		}
		tag := make(gn.Tag, 0, len(inner))
		for _, v := range inner {
			s, err := decodeString(v, "tags")
			if err != nil {
				return nil, err
			}
			tag = append(tag, s)
		}
		tags = append(tags, tag)
	}
	return tags, nil
}

// hasLoneSurrogate scans a JSON string literal for a \uD800-\uDFFF escape
// that is not part of a high-low pair.
func hasLoneSurrogate(lit []byte) bool {
	pendingHigh := false
	for i := 0; i < len(lit); i++ {
		if lit[i] != '\\' {
			if pendingHigh {
				return true
			}
			continue
		}
		if i+1 >= len(lit) {
			return false
		}
		if lit[i+1] != 'u' || i+5 >= len(lit) {
			if pendingHigh {
				return true
			}
			i++
			continue
		}
		u, err := strconv.ParseUint(string(lit[i+2:i+6]), 16, 16)
		if err != nil {
			return false // json.Unmarshal reports it
		}
		i += 5
		switch {
		case u >= 0xD800 && u <= 0xDBFF:
			if pendingHigh {
				return true
			}
			pendingHigh = true
		case u >= 0xDC00 && u <= 0xDFFF:
			if !pendingHigh {
				return true
			}
			pendingHigh = false
		default:
			if pendingHigh {
				return true
			}
		}
	}
	return pendingHigh
}

// ComputeID returns the lowercase hex sha256 of the canonical serialization.
func ComputeID(ev *Event) string {
	h := sha256.Sum256(ev.Serialize())
	return hex.EncodeToString(h[:])
}

// Verify checks the id and the BIP-340 signature.
func Verify(ev *Event) error {
	if !ev.CheckID() {
		return &CheckError{ID: ev.ID, Reason: "id is not the hash of the event"}
	}
	ok, err := ev.CheckSignature()
	if err != nil || !ok {
		return &CheckError{ID: ev.ID, Reason: "bad signature"}
	}
	return nil
}

// ParseAndVerify is ParseEvent followed by Verify: the whole of section 1's
// "dropped silently" test.
func ParseAndVerify(raw []byte) (*Event, error) {
	ev, err := ParseEvent(raw)
	if err != nil {
		return nil, err
	}
	if err := Verify(ev); err != nil {
		return nil, err
	}
	return ev, nil
}

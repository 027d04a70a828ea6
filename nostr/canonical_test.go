package nostr

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// TestParseCanonicalReadsMarshalEvent: every spelling MarshalEvent writes
// takes the canonical path (the strict parse is several times slower, and
// a full site build reads every stored event), with the strict parse's
// result.
func TestParseCanonicalReadsMarshalEvent(t *testing.T) {
	base := Event{ID: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		PubKey: "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210",
		Sig:    "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
		Kind:   -3, CreatedAt: 0, Tags: Tags{}}
	for _, ev := range []Event{
		base,
		{ID: base.ID, PubKey: base.PubKey, Sig: base.Sig, Kind: 4424, CreatedAt: 1 << 62,
			Tags:    Tags{{"g", "chess"}, {}, {"x", "", "\t\"\\"}},
			Content: "quote \" backslash \\ \b\f\n\r\t nul \x00 ctl \x1f del \x7f é ✓ 😀 <&> \u2028"},
	} {
		raw := MarshalEvent(&ev)
		got, ok := parseCanonical(raw)
		if !ok {
			t.Fatalf("%q: not read as canonical", raw)
		}
		want, err := parseEvent(raw, false)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: canonical %#v, strict %#v (%v)", raw, got, want, err)
		}
	}
}

// FuzzParseCanonicalMarshalsBack: what the canonical path reads marshals
// back to exactly its bytes, so it refuses every other spelling of a
// string (\/, \u0065, upper-case hex, \u0009 for \t, a surrogate pair),
// which the strict parse then reads. ParseStored's equality with
// ParseEvent does not see this: those spellings decode the same.
func FuzzParseCanonicalMarshalsBack(f *testing.F) {
	ev := Event{ID: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		PubKey: "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210",
		Sig:    "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
		Kind:   4424, CreatedAt: 1700000000, Tags: Tags{{"g", "chess"}}, Content: "a\x01\tb"}
	canon := string(MarshalEvent(&ev))
	f.Add([]byte(canon))
	for _, spelling := range []string{`\/`, `\u0065`, `\u001F`, `\u0009`, `\ud83d\ude00`, `\u00e9`} {
		f.Add([]byte(strings.Replace(canon, `"a\u0001`, `"`+spelling+`\u0001`, 1)))
		f.Add([]byte(strings.Replace(canon, `"chess"`, `"`+spelling+`"`, 1)))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if ev, ok := parseCanonical(raw); ok && !bytes.Equal(MarshalEvent(ev), raw) {
			t.Fatalf("%q: read as canonical, marshals back to %q", raw, MarshalEvent(ev))
		}
	})
}

// TestIsLowerHex: exactly the 16 lowercase digits, at exactly the length.
func TestIsLowerHex(t *testing.T) {
	for c := 0; c < 256; c++ {
		want := c >= '0' && c <= '9' || c >= 'a' && c <= 'f'
		if got := IsLowerHex(string([]byte{'0', byte(c)}), 2); got != want {
			t.Errorf("byte %#x: %v, want %v", c, got, want)
		}
	}
	if IsLowerHex("abc", 2) || IsLowerHex("ab", 3) || !IsLowerHex("", 0) {
		t.Error("the length is not checked")
	}
}

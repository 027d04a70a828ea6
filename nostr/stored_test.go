package nostr_test

import (
	"reflect"
	"strings"
	"testing"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/nostr"
)

// storedCases are bytes a store may hold, canonical or not, and bytes it
// should never hold, for ParseStored to read exactly as ParseEvent does.
func storedCases() [][]byte {
	ev := signed()
	canon := string(nostr.MarshalEvent(ev))
	tricky := *ev
	tricky.Content = "quote \" backslash \\ nul \x00 ctl \x1f del \x7f é ✓ 😀 <&> \u2028"
	tricky.Tags = nostr.Tags{{"g", ev.Tags[0][1]}, {}, {"x", "", "\t"}}
	noTags := *ev
	noTags.Tags = nil
	return [][]byte{
		[]byte(canon),
		nostr.MarshalEvent(&tricky),
		nostr.MarshalEvent(&noTags),
		[]byte(strings.Replace(canon, `,"kind":`, `, "kind":`, 1)),                         // a relay's spacing
		[]byte(strings.Replace(canon, `"content":"`, `"content":"\u0065`, 1)),              // an escape MarshalEvent does not write
		[]byte(strings.Replace(canon, `"content":"`, `"content":"\ud800`, 1)),              // a lone surrogate: refused
		[]byte(strings.Replace(canon, `"content":"`, "\"content\":\"\xff", 1)),             // not UTF-8
		[]byte(strings.Replace(canon, `{"id":"`, `{"kind":1,"id":"`, 1)),                   // a repeated member: the last counts
		[]byte(strings.Replace(canon, `"pubkey":"`, `"PubKey":"`, 1)),                      // no pubkey member
		[]byte(strings.Replace(canon, `"id":"`+ev.ID, `"id":"`+strings.ToUpper(ev.ID), 1)), // upper-case hex
		[]byte(strings.Replace(canon, `"tags":[`, `"tags":[["a",1],`, 1)),                  // a tag that is not strings
		[]byte(strings.Replace(canon, `"content":"`, `"content":"\u001F`, 1)),              // upper-case hex in an escape
		[]byte(strings.Replace(canon, `"content":"`, `"content":"\u0009`, 1)),              // \t spelled long
		[]byte(strings.Replace(canon, `"content":"`, `"content":"\/`, 1)),                  // an escaped solidus
		[]byte(strings.Replace(canon, `"created_at":`, `"created_at":-`, 1)),               // a negative time: refused
		[]byte(strings.Replace(canon, `"created_at":`, `"created_at":0`, 1)),               // a leading zero
		[]byte(strings.Replace(canon, `"kind":`, `"kind":-`, 1)),                           // a negative kind
		[]byte(strings.Replace(canon, `"tags":[`, `"tags":[[],`, 1)),                       // an empty tag
		[]byte(canon + " "), // trailing space
		[]byte(`{"id":1}`),
		[]byte(``),
	}
}

func sameParse(t *testing.T, raw []byte) {
	t.Helper()
	want, werr := nostr.ParseEvent(raw)
	got, gerr := nostr.ParseStored(raw)
	if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
		t.Fatalf("%q: ParseStored error %v, ParseEvent %v", raw, gerr, werr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: ParseStored gives %#v, ParseEvent %#v", raw, got, want)
	}
}

// TestParseStoredIsParseEvent: the fast decoder changes nothing but the
// time, for canonical bytes, a relay's spellings and bytes ParseEvent
// refuses.
func TestParseStoredIsParseEvent(t *testing.T) {
	for _, raw := range storedCases() {
		sameParse(t, raw)
	}
	// Empty inner tags come back as empty, not nil, as ParseEvent gives them.
	ev, err := nostr.ParseStored(storedCases()[1])
	if err != nil || ev.Tags[1] == nil || !reflect.DeepEqual(ev.Tags[1], gn.Tag{}) {
		t.Fatalf("inner empty tag: %#v, %v", ev, err)
	}
}

func FuzzParseStored(f *testing.F) {
	for _, raw := range storedCases() {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) { sameParse(t, raw) })
}

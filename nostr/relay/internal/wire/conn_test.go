package wire

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"vesper/nostr"
)

// TestClip (issue 13, item 7): relay-supplied text is cut to MaxRelayText
// bytes at a character boundary.
func TestClip(t *testing.T) {
	tests := []struct {
		name, in string
		want     int // length of the result
	}{
		{"short", "blocked: no", len("blocked: no")},
		{"exact", strings.Repeat("a", MaxRelayText), MaxRelayText},
		{"long", strings.Repeat("a", 1<<20), MaxRelayText + 3},
		{"multibyte at the cut", strings.Repeat("a", MaxRelayText-1) + "é" + "tail", MaxRelayText - 1 + 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Clip(tt.in)
			if len(got) != tt.want || !utf8.ValidString(got) {
				t.Errorf("clip: %d bytes (valid UTF-8 %v), want %d", len(got), utf8.ValidString(got), tt.want)
			}
		})
	}
}

// TestTextLimiter (item 7): a burst, then one line per noticeEvery, and the
// refused lines are counted on the next one let through.
func TestTextLimiter(t *testing.T) {
	l := NewTextLimiter()
	t0 := time.Unix(1_800_000_000, 0)
	allowed := 0
	for range 1000 {
		if ok, _ := l.allow(t0); ok {
			allowed++
		}
	}
	if allowed != NoticeBurst {
		t.Errorf("burst: %d allowed, want %d", allowed, NoticeBurst)
	}
	ok, dropped := l.allow(t0.Add(noticeEvery))
	if !ok || dropped != 1000-NoticeBurst {
		t.Errorf("after %v: allowed %v, dropped %d; want true, %d", noticeEvery, ok, dropped, 1000-NoticeBurst)
	}
	if ok, _ := l.allow(t0.Add(noticeEvery)); ok {
		t.Error("a second line in the same period was allowed")
	}
}

// oldEnvelope is how messages were split before nostr.SplitArray: the
// whole message through encoding/json, the event's bytes included.
func oldEnvelope(msg []byte) (envelope, bool) {
	var arr []json.RawMessage
	if err := json.Unmarshal(msg, &arr); err != nil || len(arr) == 0 {
		return envelope{}, false
	}
	var label string
	if json.Unmarshal(arr[0], &label) != nil {
		return envelope{}, false
	}
	return envelope{label: label, arr: arr}, true
}

// checkEnvelope: a message splits as encoding/json splits it, except that
// the event of an EVENT is left to nostr.ParseEvent, which must then
// refuse it when encoding/json would have refused the message.
func checkEnvelope(t *testing.T, c *Conn, msg []byte) {
	t.Helper()
	got, ok := c.envelope(msg)
	want, wantOK := oldEnvelope(msg)
	if ok && !wantOK {
		if got.label != "EVENT" || len(got.arr) < 3 {
			t.Fatalf("%q: split, encoding/json refuses it", msg)
		}
		if _, err := nostr.ParseEvent(got.arr[2]); err == nil {
			t.Fatalf("%q: split, encoding/json refuses it, and the event parses", msg)
		}
		return
	}
	if ok != wantOK {
		t.Fatalf("%q: split %v, encoding/json %v", msg, ok, wantOK)
	}
	if !ok {
		return
	}
	if got.label != want.label || len(got.arr) != len(want.arr) {
		t.Fatalf("%q: %q with %d elements, want %q with %d", msg, got.label, len(got.arr), want.label, len(want.arr))
	}
	for i := range want.arr {
		if !bytes.Equal(got.arr[i], want.arr[i]) || got.str(i) != want.str(i) {
			t.Fatalf("%q: element %d %q (%q), want %q (%q)", msg, i, got.arr[i], got.str(i), want.arr[i], want.str(i))
		}
	}
}

var envelopeSeeds = []string{
	`["EVENT","vesper-1",{"id":"x"}]`, ` [ "EVENT" , "vesper-1" , {"content":"]\""} , 4 ] `,
	`["EVENT","vesper-1",{"id":}]`, `["EVENT","vesper-1",{"id":]`, `["EVENT","vesper-1",{}`, `["EVENT","vesper-1",{}] x`,
	`["EVENT",x,{}]`, `["EVENT","s",{},x]`, `["EVENT","s"]`, `["EV\u0045NT","s",{}]`, `["EOSE","vesper-1"]`,
	`["OK","ab",true,"duplicate: \u00e9"]`, `["OK","ab",tru]`, `["NOTICE","h\u00e9"]`, `["CLOSED","s","auth-required: x"]`,
	`["NOTICE","\ud800"]`, "[\"NOTICE\",\"a\xffb\"]", `[null]`, `[1]`, `[]`, `{}`, ``, `[`, `["EOSE",]`, `["EOSE" "s"]`,
}

// TestEnvelope: relay messages split as encoding/json splits them.
func TestEnvelope(t *testing.T) {
	c := &Conn{Log: slog.New(slog.DiscardHandler)}
	for _, m := range envelopeSeeds {
		t.Run(m, func(t *testing.T) { checkEnvelope(t, c, []byte(m)) })
	}
}

func FuzzEnvelope(f *testing.F) {
	for _, m := range envelopeSeeds {
		f.Add([]byte(m))
	}
	c := &Conn{Log: slog.New(slog.DiscardHandler)}
	f.Fuzz(func(t *testing.T, msg []byte) { checkEnvelope(t, c, msg) })
}

package relay

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestClip (issue 13, item 7): relay-supplied text is cut to maxRelayText
// bytes at a character boundary.
func TestClip(t *testing.T) {
	tests := []struct {
		name, in string
		want     int // length of the result
	}{
		{"short", "blocked: no", len("blocked: no")},
		{"exact", strings.Repeat("a", maxRelayText), maxRelayText},
		{"long", strings.Repeat("a", 1<<20), maxRelayText + 3},
		{"multibyte at the cut", strings.Repeat("a", maxRelayText-1) + "é" + "tail", maxRelayText - 1 + 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := clip(tt.in)
			if len(got) != tt.want || !utf8.ValidString(got) {
				t.Errorf("clip: %d bytes (valid UTF-8 %v), want %d", len(got), utf8.ValidString(got), tt.want)
			}
		})
	}
}

// TestTextLimiter (item 7): a burst, then one line per noticeEvery, and the
// refused lines are counted on the next one let through.
func TestTextLimiter(t *testing.T) {
	l := newTextLimiter()
	t0 := time.Unix(1_800_000_000, 0)
	allowed := 0
	for range 1000 {
		if ok, _ := l.allow(t0); ok {
			allowed++
		}
	}
	if allowed != noticeBurst {
		t.Errorf("burst: %d allowed, want %d", allowed, noticeBurst)
	}
	ok, dropped := l.allow(t0.Add(noticeEvery))
	if !ok || dropped != 1000-noticeBurst {
		t.Errorf("after %v: allowed %v, dropped %d; want true, %d", noticeEvery, ok, dropped, 1000-noticeBurst)
	}
	if ok, _ := l.allow(t0.Add(noticeEvery)); ok {
		t.Error("a second line in the same period was allowed")
	}
}

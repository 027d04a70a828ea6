package wire

import (
	"sync"
	"time"
	"unicode/utf8"
)

// MaxRelayText is how much of a relay-supplied string (NOTICE, CLOSED and
// OK reasons) is kept: enough for any honest reason.
const MaxRelayText = 200

// Clip bounds relay-supplied text, cutting at a character boundary.
func Clip(s string) string {
	if len(s) <= MaxRelayText {
		return s
	}
	cut := MaxRelayText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// TextLimiter is a token bucket for log lines a relay can trigger at will:
// a burst of NoticeBurst, then one per noticeEvery. What it refuses is
// counted and reported with the next line it lets through.
type TextLimiter struct {
	mu      sync.Mutex
	tokens  float64
	last    time.Time
	dropped int
}

const (
	NoticeBurst = 10
	noticeEvery = 6 * time.Second
)

func NewTextLimiter() *TextLimiter { return &TextLimiter{tokens: NoticeBurst} }

// allow reports whether a line may be logged at now, and how many were
// refused since the last one allowed.
func (l *TextLimiter) allow(now time.Time) (ok bool, dropped int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.last.IsZero() {
		l.tokens = min(NoticeBurst, l.tokens+float64(now.Sub(l.last))/float64(noticeEvery))
	}
	l.last = now
	if l.tokens < 1 {
		l.dropped++
		return false, 0
	}
	l.tokens--
	dropped, l.dropped = l.dropped, 0
	return true, dropped
}

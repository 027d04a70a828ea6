package site

import (
	"fmt"

	"vesper/match"
	"vesper/nostr"
)

// spans are the protocol's durations a template may state, by name, so
// that a sentence follows its constant: {{span "move clock"}} is
// "24 hours", {{spanAdj "move clock"}} "24-hour" (issue 39).
var spans = map[string]int64{
	"move clock":       match.MoveClock,
	"challenge expiry": match.ChallengeExpiry,
	"house wait":       match.HouseWait,
	"fallback ruling":  match.FallbackRuling,
}

func span(name string) (string, error) {
	d, ok := spans[name]
	if !ok {
		return "", fmt.Errorf("site: no duration named %q", name)
	}
	return match.Span(d), nil
}

func spanAdj(name string) (string, error) {
	d, ok := spans[name]
	if !ok {
		return "", fmt.Errorf("site: no duration named %q", name)
	}
	return match.SpanAdj(d), nil
}

// commentShown is how many code points of a comment a page shows.
func commentShown() int { return nostr.MaxCommentShown }

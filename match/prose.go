package match

import "strconv"

// Sentences that state one of the protocol's durations spell it with Span
// or SpanAdj of its constant (MoveClock, ChallengeExpiry, FutureSlack,
// HouseWait, FallbackRuling), so that changing a constant changes every
// sentence that states it. The site's templates ask for them by name
// (site's "span" function); Markdown cannot, and internal/prose's test
// checks it against the constants.

// Span is a duration in seconds as a sentence states it: "24 hours",
// "7 days", "30 minutes", "1 hour", "90 seconds". Days are used from two
// days up, and only for whole days: the move clock stays "24 hours", as
// PROTOCOL.md says it.
func Span(seconds int64) string {
	n, unit := spanUnit(seconds)
	if n != 1 {
		unit += "s"
	}
	return strconv.FormatInt(n, 10) + " " + unit
}

// SpanAdj is Span before a noun: "24-hour clock", "7-day expiry".
func SpanAdj(seconds int64) string {
	n, unit := spanUnit(seconds)
	return strconv.FormatInt(n, 10) + "-" + unit
}

func spanUnit(seconds int64) (int64, string) {
	switch {
	case seconds >= 2*86400 && seconds%86400 == 0:
		return seconds / 86400, "day"
	case seconds != 0 && seconds%3600 == 0:
		return seconds / 3600, "hour"
	case seconds != 0 && seconds%60 == 0:
		return seconds / 60, "minute"
	}
	return seconds, "second"
}

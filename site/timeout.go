package site

import (
	"html/template"

	"vesper/match"
	"vesper/nostr"
)

// playedUntil is the one date of a finished game that every page shows
// (the index, the archive, the game page): when it ended, and for a
// timeout when the loser's clock ran out by the fold's clock, not the
// claim or ruling that came later (issue 37).
func playedUntil(reason match.Reason, endedAt int64, c match.Clock) int64 {
	if reason == match.ReasonTimeout {
		return c.MoveDeadline()
	}
	return endedAt
}

// ranOut says, for a game won on time, when the loser's clock ran out and
// which event decided it: the claim or ruling that ended the game is
// dated later, a ruling often by an hour or more, and its date is not when
// the game was lost (issue 26, item 7). The times are the fold's clock's
// (match.Clock), not computed here. "" for any other ending.
func ranOut(s *match.State, firstSide, secondSide string) template.HTML {
	if !s.Over || s.Reason != match.ReasonTimeout {
		return ""
	}
	c := s.Clock()
	loser := firstSide
	if c.ToMove() == match.Second {
		loser = secondSide
	}
	by := "the timeout claim"
	for _, ev := range s.Events {
		if ev.ID == s.EndEvent && ev.Kind == nostr.KindRuling {
			by = "the arbiter's ruling"
		}
	}
	return template.HTML("when " + template.HTMLEscapeString(loser) + "'s " + match.SpanAdj(match.MoveClock) + " clock ran out at " + hdate(playedUntil(s.Reason, s.EndedAt, c)) +
		"; " + by + " that decided it is dated " + hdate(s.EndedAt) + ".")
}

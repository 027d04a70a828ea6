package site

import (
	"strconv"
	"strings"
	"time"

	"vesper/match"
)

// pgnResult is the PGN result token of a state: the computed result once the
// game is over (final or not: the Final tag says which), "*" before.
func pgnResult(s *match.State) string {
	if !s.Over {
		return "*"
	}
	switch s.Result {
	case match.First:
		return "1-0"
	case match.Second:
		return "0-1"
	}
	return "1/2-1/2"
}

// pgnTermination maps a reason to the PGN standard's Termination values.
func pgnTermination(s *match.State) string {
	switch {
	case !s.Over:
		return "unterminated"
	case s.Reason == match.ReasonTimeout:
		return "time forfeit"
	}
	return "normal"
}

// pgnElo is a WhiteElo/BlackElo value: the rating before a rated game,
// "-" (unknown) for a game that was not rated.
func pgnElo(r gameRating) string {
	if !r.Rated {
		return "-"
	}
	return strconv.Itoa(r.Before)
}

// pgnString quotes a tag value: PGN escapes only backslash and quote; the
// value is cleaned first so no control character or newline can end the tag
// or forge another.
func pgnString(s string) string {
	s = cleanLine(s, maxName*2)
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, `"`, `\"`)
	return `"` + s + `"`
}

// pgn renders the game with the Seven Tag Roster first (Event, Site, Date,
// Round, White, Black, Result), then the match id, the result's reason and
// how it became final, then the movetext in SAN wrapped at 79 columns.
func pgn(s *match.State, sans []string, white, black player, whiteElo, blackElo gameRating) string {
	var b strings.Builder
	tag := func(name, value string) {
		b.WriteString("[" + name + " " + pgnString(value) + "]\n")
	}
	result := pgnResult(s)
	tag("Event", "vesper "+s.Kind+" match")
	tag("Site", "nostr, kind 4420 challenge "+s.Match)
	tag("Date", time.Unix(s.CreatedAt, 0).UTC().Format("2006.01.02"))
	tag("Round", "-")
	tag("White", white.pgnName())
	tag("Black", black.pgnName())
	tag("Result", result)
	tag("Match", s.Match)
	if white.Pubkey != "" {
		tag("WhiteNpub", white.Npub)
	}
	if black.Pubkey != "" {
		tag("BlackNpub", black.Npub)
	}
	tag("WhiteElo", pgnElo(whiteElo))
	tag("BlackElo", pgnElo(blackElo))
	if whiteElo.Rated && blackElo.Rated {
		tag("WhiteRatingDiff", strconv.Itoa(whiteElo.After-whiteElo.Before))
		tag("BlackRatingDiff", strconv.Itoa(blackElo.After-blackElo.Before))
	}
	if s.Over {
		tag("Reason", string(s.Reason))
	}
	tag("Termination", pgnTermination(s))
	if s.Final {
		tag("Final", string(s.FinalBy))
		tag("FinalEvent", s.FinalEvent)
	} else {
		tag("Final", "no")
	}
	tag("PlyCount", strconv.Itoa(len(sans)))
	b.WriteByte('\n')
	line := 0
	word := func(w string) {
		if line > 0 && line+1+len(w) > 79 {
			b.WriteByte('\n')
			line = 0
		} else if line > 0 {
			b.WriteByte(' ')
			line++
		}
		b.WriteString(w)
		line += len(w)
	}
	for i, san := range sans {
		if i%2 == 0 {
			word(strconv.Itoa(i/2+1) + ".")
		}
		word(san)
	}
	word(result)
	b.WriteByte('\n')
	return b.String()
}

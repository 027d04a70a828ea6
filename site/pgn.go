package site

import (
	"strconv"
	"time"

	"vesper/match"
	"vesper/nostr"
	"vesper/pgn"
)

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

// pgn renders the game with the Seven Tag Roster first (Event, Site, Date,
// Round, White, Black, Result), then the match id, the result's reason and
// how it became final, then the movetext in SAN wrapped at 79 columns.
func matchPGN(s *match.State, sans []string, white, black player, whiteElo, blackElo gameRating) string {
	var tags []pgn.Tag
	tag := func(name, value string) {
		// Names come from profiles: cleaned to one short line first.
		tags = append(tags, pgn.Tag{Name: name, Value: cleanLine(value, maxName*2)})
	}
	result := pgn.Result(s.Over, s.Result)
	tag("Event", "vesper "+s.Kind+" match")
	tag("Site", "nostr, kind "+strconv.Itoa(nostr.KindChallenge)+" challenge "+s.Match)
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
	return pgn.Write(tags, sans, result)
}

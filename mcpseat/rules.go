package mcpseat

import (
	_ "embed" // rulesSource
	"strings"

	"vesper/match"
)

// RulesURI names the rules resource.
const RulesURI = "vesper://rules"

// rulesText is what a model must know to play, in the words of
// PROTOCOL.md (sections 1, 2, 4, 5 and 7) cut to what a player acts on.
// The tools refuse anything the rules would not count, so this is for
// planning, not for policing. Names in backticks are tools, their
// arguments or fields of their answers (a test holds them to that);
// values are in double quotes. The durations it states are filled in
// from their constants (rulesFill), so a changed constant changes the
// rules agents read.
var rulesText = rulesFill.Replace(rulesSource)

//go:embed rules.md
var rulesSource string

// rulesFill replaces the placeholders of rules.md.
var rulesFill = strings.NewReplacer(
	"{move clock}", match.Span(match.MoveClock),
	"{challenge expiry}", match.Span(match.ChallengeExpiry),
)

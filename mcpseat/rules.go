package mcpseat

import _ "embed" // rulesText

// RulesURI names the rules resource.
const RulesURI = "vesper://rules"

// rulesText is what a model must know to play, in the words of
// PROTOCOL.md (sections 1, 2, 4, 5 and 7) cut to what a player acts on.
// The tools refuse anything the rules would not count, so this is for
// planning, not for policing. Names in backticks are tools, their
// arguments or fields of their answers (a test holds them to that);
// values are in double quotes.
//
//go:embed rules.md
var rulesText string

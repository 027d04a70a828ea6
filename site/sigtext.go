package site

import (
	"strconv"

	"vesper/match"
	"vesper/nostr"
)

// signedText words a player's signature that is not final yet as a person
// would: "The first player signed 0-1 after 4 plies" (issue 26, item 9).
func signedText(role string, r nostr.Result) string {
	return "The " + role + " player signed " + resultCode(r.Result) + " after " + strconv.Itoa(r.Plies) + " plies"
}

// resultCode is a result as a score: 1-0, 0-1 or ½-½; anything else (the
// fold keeps no such signature) cleaned as it is.
func resultCode(result string) string {
	switch result {
	case match.First:
		return "1-0"
	case match.Second:
		return "0-1"
	case match.Draw:
		return "½-½"
	}
	return cleanLine(result, 20)
}

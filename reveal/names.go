package reveal

import "strings"

// NamesMove reports whether a reasoning text names the move played, the
// plan-to-move consistency a site shows beside verified reasoning. The
// rule is textual, on purpose (a site must not run an engine to judge it):
//
//   - The text is cut into tokens: maximal runs of ASCII letters, digits
//     and the characters + # = -. Everything else (spaces, punctuation,
//     move numbers' dots, "!" and "?" annotations) separates tokens, so
//     "1.e4!" holds the token "e4".
//   - A token names the move when, with any trailing + and # removed, it
//     equals san with its trailing + and # removed (case-sensitive: "bxc3"
//     is a pawn's capture, "Bxc3" a bishop's), or equals uci exactly.
//   - Castling may also be written with zeros ("0-0" for "O-O").
//
// san or uci may be "" (unknown); a gomoku point is passed as san. A
// token is whole: "Nf3" does not name "f3", nor "e4e5" name "e4".
func NamesMove(text, san, uci string) bool {
	san = trimCheck(san)
	for _, tok := range tokens(text) {
		t := trimCheck(tok)
		switch {
		case t == "":
		case san != "" && (t == san || strings.ReplaceAll(t, "0", "O") == san && strings.HasPrefix(san, "O-O")):
			return true
		case uci != "" && tok == uci:
			return true
		}
	}
	return false
}

func trimCheck(s string) string { return strings.TrimRight(s, "+#") }

func tokens(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '+' || r == '#' || r == '=' || r == '-')
	})
}

// Package pgn writes Portable Game Notation: tag pairs, then the SAN
// movetext wrapped at 79 columns and the result token. It is the one PGN
// writer of the project: the agent's seat (status objects) and the site
// (the .pgn file of every chess match) choose the tags, this package spells
// them.
package pgn

import (
	"strconv"
	"strings"
)

// Tag is one tag pair.
type Tag struct{ Name, Value string }

// Result is the PGN result token: "*" while the game goes on, else the
// outcome of result ("first", "second", anything else a draw).
func Result(over bool, result string) string {
	if !over {
		return "*"
	}
	switch result {
	case "first":
		return "1-0"
	case "second":
		return "0-1"
	}
	return "1/2-1/2"
}

// Write renders tags, then the moves numbered from 1 with White's first,
// then the result token.
func Write(tags []Tag, sans []string, result string) string {
	var b strings.Builder
	for _, t := range tags {
		b.WriteString("[" + t.Name + " " + Quote(t.Value) + "]\n")
	}
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

// Quote quotes a tag value. PGN escapes only backslash and quote; control
// characters become spaces, so that no value can end its tag line or forge
// another tag.
func Quote(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, `"`, `\"`)
	return `"` + s + `"`
}

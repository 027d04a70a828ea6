// Package pgn writes Portable Game Notation: tag pairs, then the SAN
// movetext wrapped at 79 columns and the result token, every line under 80
// columns and in ASCII, as the standard's export format has them. It is the one PGN
// writer of the project: the agent's seat (status objects) and the site
// (the .pgn file of every chess match, which `vesper pgn` prints and the
// NIP-64 game record carries) choose the tags, this package spells them.
//
// What it writes must load in chess.js 1.4.0's loadPgn, the PGN reader of
// the usual NIP-64 client, as well as in readers that follow the PGN
// standard; see Quote and Write for the two places where chess.js reads
// less than the standard allows.
package pgn

import (
	"strconv"
	"strings"
)

// MaxLine is the longest line Write writes, in columns (bytes: every line
// is ASCII): the PGN standard's export format keeps movetext lines under 80
// columns, and tag lines are held to the same here.
const MaxLine = 79

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
//
// A tag name keeps only its ASCII letters, and a tag whose name has none
// is left out: chess.js 1.4.0 reads a tag name as [a-zA-Z]+ (the standard
// also allows digits and underscores, which would make chess.js refuse
// the whole game). Every name the project uses is letters only.
func Write(tags []Tag, sans []string, result string) string {
	var b strings.Builder
	for _, t := range tags {
		name := tagName(t.Name)
		if name == "" {
			continue
		}
		b.WriteString(tagLine(name, t.Value) + "\n")
	}
	b.WriteByte('\n')
	line := 0
	word := func(w string) {
		if line > 0 && line+1+len(w) > MaxLine {
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

func tagName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return -1
	}, s)
}

// Quote quotes a tag value so that chess.js 1.4.0 and a reader of the PGN
// standard both load it and read the same value, in printable ASCII.
//
// chess.js 1.4.0 (its grammar, src/pgn.peggy) reads a tag value as
// '"' [^"]* '"': it knows no escapes. The standard's \" ends the value
// early there and the whole game fails to load, and its \\ loads as two
// backslashes where a standard reader sees one. So a value holds neither:
// a quote becomes an apostrophe (') and a backslash a slash (/), which
// every reader reads as written. Control characters (C0, DEL, C1) and the
// Unicode line and paragraph separators become spaces, so that a value
// stays on its tag line and cannot forge another tag. Everything else is
// spelt in ASCII (ASCII, ascii.go): the export format is ASCII/Latin-1.
func Quote(s string) string {
	return `"` + strings.Map(func(r rune) rune {
		switch r {
		case '"':
			return '\''
		case '\\':
			return '/'
		}
		return r
	}, ASCII(s)) + `"`
}

// tagLine is one tag pair's line, the value cut (ending "...") where the
// line would reach MaxLine columns: a long name must not make the record's
// lines longer than the export format's.
func tagLine(name, value string) string {
	q := Quote(value)
	if over := len(name) + len(q) + 3 - MaxLine; over > 0 {
		keep := len(q) - 2 - over - len("...")
		if keep < 0 {
			keep = 0
		}
		q = `"` + q[1:1+keep] + `..."`
	}
	return "[" + name + " " + q + "]"
}

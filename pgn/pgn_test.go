package pgn

import (
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	got := Write([]Tag{{"White", `a "b" \ c` + "\n[Forged \"x\"]"}, {"Result", "1-0"}}, []string{"e4", "e5", "Qh5"}, Result(true, "first"))
	want := "[White \"a 'b' / c [Forged 'x']\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 1-0\n"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	if strings.Count(got, "\n[") != 1 {
		t.Fatal("a value forged a tag line")
	}
}

// TestQuote: a quoted value holds no quote, no backslash and no line
// break, so chess.js 1.4.0 (tag value '"' [^"]* '"', no escapes) and a
// reader of the PGN standard (section 7: \" and \\ are escapes) read the
// same string, and the value stays on its tag line. The conformance
// package loads these with chess.js itself.
func TestQuote(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"plain", "Alice", `"Alice"`},
		{"empty", "", `""`},
		{"quotes become apostrophes", `Bob "the rook"`, `"Bob 'the rook'"`},
		{"lone quote", `"`, `"'"`},
		{"backslashes become slashes", `¯\_(ツ)_/¯`, `"?/_(?)_/?"`},
		{"trailing backslash", `x\`, `"x/"`},
		{"escaped quote in the input", `a\"b`, `"a/'b"`},
		{"brackets and braces stay", `[Event "x"] {c} ; %`, `"[Event 'x'] {c} ; %"`},
		{"newline and tab", "a\nb\tc\r", `"a b c "`},
		{"NUL, DEL and C1", "a\x00b\x7fc\u0085d", `"a b c d"`},
		{"line separators", "a\u2028b\u2029c", `"a b c"`},
		{"invalid UTF-8", "a\xffb", `"a?b"`},
		{"spelt in ASCII", "Żółć 🐴 الفيل", `"Zolc ? ?????"`},
		{"the site's short npub", "npub1abcd…wxyz", `"npub1abcd...wxyz"`},
		{"typographic quotes", "“Bob” ‘the’ rook – ½", `"'Bob' 'the' rook - ?"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Quote(c.in); got != c.want {
				t.Errorf("Quote(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// TestWriteTagNames: chess.js 1.4.0 reads a tag name as [a-zA-Z]+, so a
// name keeps its letters only, and a name without any is left out.
func TestWriteTagNames(t *testing.T) {
	got := Write([]Tag{{"White_Elo2", "1"}, {"_1", "gone"}, {"", "gone"}, {"Black", "b"}}, nil, "*")
	want := "[WhiteElo \"1\"]\n[Black \"b\"]\n\n*\n"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

// TestLinesUnder80: every line Write writes, tag pairs included, is under
// 80 columns; a tag value that would make a longer line is cut, ending
// "...", and a value that fits is not.
func TestLinesUnder80(t *testing.T) {
	var sans []string
	for range 60 {
		sans = append(sans, "Nf3")
	}
	long := strings.Repeat("long name ", 30)
	hex := strings.Repeat("0a", 32)
	text := Write([]Tag{{"White", long}, {"BlackRatingDiff", long}, {"FinalEvent", hex}, {"Black", "é" + long}}, sans, "*")
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for _, l := range lines {
		if len(l) > MaxLine {
			t.Errorf("line of %d columns: %q", len(l), l)
		}
	}
	if lines[0] != `[White "`+long[:MaxLine-len(`[White "..."]`)]+`..."]` {
		t.Errorf("long value: %q", lines[0])
	}
	if lines[2] != `[FinalEvent "`+hex+`"]` || len(lines[2]) != MaxLine {
		t.Errorf("a 79-column tag line was changed: %q", lines[2])
	}
	if len(lines[3]) != MaxLine || !strings.HasPrefix(lines[3], `[Black "elong name`) {
		t.Errorf("value spelt in ASCII then cut: %q", lines[3])
	}
}

// TestASCII: the spelling rule of ascii.go, and every character of the
// Latin blocks it spells comes out as ASCII letters.
func TestASCII(t *testing.T) {
	for in, want := range map[string]string{
		"Ærøskøbing":      "AEroskobing",
		"Straße":          "Strasse",
		"Łódź, Kraków":    "Lodz, Krakow",
		"Œuvre þorn":      "OEuvre thorn",
		"Dvořák İstanbul": "Dvorak Istanbul",
		"a\u00a0b\u2003c": "a b c",
		"x×y÷z":           "xxy/z",
		"wait…":           "wait...",
		"象棋 🐴":            "?? ?",
	} {
		if got := ASCII(in); got != want {
			t.Errorf("ASCII(%q) = %q, want %q", in, got, want)
		}
	}
	for r := rune(0xc0); r <= 0x17f; r++ {
		got := ASCII(string(r))
		if r == 0xd7 || r == 0xf7 { // × and ÷
			continue
		}
		if got == "" || strings.Trim(got, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") != "" {
			t.Errorf("ASCII(%q) = %q, want letters", r, got)
		}
	}
}

func TestResult(t *testing.T) {
	for _, c := range []struct {
		over   bool
		result string
		want   string
	}{{false, "first", "*"}, {true, "first", "1-0"}, {true, "second", "0-1"}, {true, "draw", "1/2-1/2"}} {
		if got := Result(c.over, c.result); got != c.want {
			t.Errorf("Result(%v, %q) = %q, want %q", c.over, c.result, got, c.want)
		}
	}
}

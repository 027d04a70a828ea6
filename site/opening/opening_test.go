package opening

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vesper/match/chessjs"
)

// small is a table written by hand in the derived form, so these tests do
// not depend on the shipped file.
func small(t *testing.T) *Table {
	t.Helper()
	var b strings.Builder
	b.WriteString(Header + "\n")
	for _, l := range [][3]string{
		{"B00", "King's Pawn Game", "1. e4"},
		{"C20", "King's Pawn Game", "1. e4 e5"},
		{"C40", "King's Knight Opening", "1. e4 e5 2. Nf3"},
		{"C41", "Philidor Defense", "1. e4 e5 2. Nf3 d6"},
		{"C44", "King's Pawn Game: Tayler Opening", "1. e4 e5 2. Nf3 Nc6 3. Be2"},
		{"C99", "A longer line to the same position", "1. Nf3 e5 2. e4 d6"},
	} {
		epd, _, err := Replay(l[2])
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(l[0] + "\t" + l[1] + "\t" + l[2] + "\t" + epd + "\n")
	}
	tb, err := Parse(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func epds(t *testing.T, moves ...string) []string {
	t.Helper()
	g := chessjs.NewGame()
	var out []string
	for _, mv := range moves {
		if _, err := g.Move(mv); err != nil {
			t.Fatal(err)
		}
		out = append(out, EPD(g.FEN()))
	}
	return out
}

// TestMatch: the latest known position names the opening, transpositions
// included, and the shorter of two lines to one position names it.
func TestMatch(t *testing.T) {
	tb := small(t)
	cases := []struct {
		name  string
		moves []string
		eco   string
		ply   int
	}{
		{"one move", []string{"e2e4"}, "B00", 1},
		{"out of book after 2", []string{"e2e4", "e7e5", "a2a3", "a7a6"}, "C20", 2},
		{"Philidor by transposition", []string{"g1f3", "e7e5", "e2e4", "d7d6", "f1c4"}, "C41", 4},
		{"Philidor in order", []string{"e4", "e5", "Nf3", "d6"}, "C41", 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, ply, ok := tb.Match(epds(t, c.moves...))
			if !ok || o.ECO != c.eco || ply != c.ply {
				t.Errorf("Match = %+v ply %d %v, want %s at ply %d", o, ply, ok, c.eco, c.ply)
			}
		})
	}
	if _, _, ok := tb.Match(epds(t, "d2d4")); ok {
		t.Error("1. d4 is named by a table without it")
	}
	if _, _, ok := (*Table)(nil).Match(nil); ok {
		t.Error("a nil table names an opening")
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{
		"",                              // no header
		"eco\tname\tpgn\n",              // the Lichess header, not the derived one
		Header + "\nC20\tKing's Pawn\n", // fields missing
	} {
		if _, err := Parse(strings.NewReader(in)); err == nil && in != "" {
			t.Errorf("Parse(%q) accepted it", in)
		}
	}
	if _, _, err := Replay("1. e4 e4"); err == nil {
		t.Error("Replay accepted an illegal line")
	}
}

// TestShippedTable: the shipped table is the complete Lichess table, and
// every position it names gets exactly the Lichess table's name. Each line
// of the five files is read here on its own (not through Derive or Parse)
// and played move by move with match/chessjs; its final position must be
// named by that line, or, where several lines reach the position, by the
// shortest of them (then the earliest), and at that line's last ply.
func TestShippedTable(t *testing.T) {
	type line struct {
		eco, name string
		plies     int
	}
	byEPD := map[string]line{}
	var all []struct {
		line
		epds []string
	}
	for _, name := range LichessFiles {
		raw, err := data.ReadFile("data/lichess/" + name)
		if err != nil {
			t.Fatalf("%v: %v", errNotShipped, err)
		}
		rows := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
		if rows[0] != "eco\tname\tpgn" {
			t.Fatalf("%s: header %q", name, rows[0])
		}
		for i, row := range rows[1:] {
			f := strings.Split(row, "\t")
			if len(f) != 3 {
				t.Fatalf("%s:%d: %q", name, i+2, row)
			}
			var moves []string
			for _, tok := range strings.Fields(f[2]) {
				if !strings.HasSuffix(tok, ".") {
					moves = append(moves, tok)
				}
			}
			e := epds(t, moves...)
			l := line{f[0], f[1], len(moves)}
			last := e[len(e)-1]
			if old, ok := byEPD[last]; !ok || l.plies < old.plies {
				byEPD[last] = l
			}
			all = append(all, struct {
				line
				epds []string
			}{l, e})
		}
	}
	if len(all) != 3807 {
		t.Errorf("%d lines shipped, want Lichess's 3,807 at commit %s", len(all), LichessCommit)
	}
	shared := 0
	for _, l := range all {
		want := byEPD[l.epds[len(l.epds)-1]]
		if want != l.line {
			shared++
		}
		o, ply, ok := Default().Match(l.epds)
		if !ok || o.ECO != want.eco || o.Name != want.name || ply != l.plies {
			t.Errorf("%s %s (%d plies): named %+v at ply %d (%v), want %s %s", l.eco, l.name, l.plies, o, ply, ok, want.eco, want.name)
		}
	}
	t.Logf("%d lines, %d positions; %d lines reach a position a shorter or earlier line names", len(all), len(byEPD), shared)
	if Default().Len() != len(byEPD) || Default().Origin() != Source || !strings.Contains(Source, LichessCommit) {
		t.Errorf("Default: %d positions, origin %q", Default().Len(), Default().Origin())
	}
}

// TestShippedNames: common openings get their Lichess names, at the ply
// that names them.
func TestShippedNames(t *testing.T) {
	cases := []struct {
		moves     []string
		eco, name string
		ply       int
	}{
		{[]string{"e4", "e5"}, "C20", "King's Pawn Game", 2},
		{[]string{"e4", "e5", "Nf3", "Nc6", "Bb5"}, "C60", "Ruy Lopez", 5},
		{[]string{"e4", "e5", "Nf3", "Nc6", "Bb5", "h6"}, "C60", "Ruy Lopez", 5},
		{[]string{"d4", "Nf6", "c4", "g6"}, "E60", "Indian Defense: West Indian Defense", 4},
		{[]string{"e4", "c5"}, "B20", "Sicilian Defense", 2},
		{[]string{"b3"}, "A01", "Nimzo-Larsen Attack", 1},
		{[]string{"e4", "c5", "Nf3", "d6", "d4", "cxd4", "Nxd4", "Nf6", "Nc3", "a6"}, "B90", "Sicilian Defense: Najdorf Variation", 10},
		{[]string{"e4", "e6", "d4", "d5", "Nc3", "Bb4"}, "C15", "French Defense: Winawer Variation", 6},
		// a transposition: the Queen's Gambit Declined reached by 1. c4
		{[]string{"c4", "e6", "d4", "d5"}, "D30", "Queen's Gambit Declined", 4},
	}
	for _, c := range cases {
		o, ply, ok := Default().Match(epds(t, c.moves...))
		if !ok || o.ECO != c.eco || o.Name != c.name || ply != c.ply {
			t.Errorf("%v: %+v at ply %d (%v), want %s %s at ply %d", c.moves, o, ply, ok, c.eco, c.name, c.ply)
		}
	}
}

// TestEveryFirstMoveNamed: whatever White's first move, the game gets a
// name.
func TestEveryFirstMoveNamed(t *testing.T) {
	g := chessjs.NewGame()
	moves := g.LegalMoves()
	if len(moves) != 20 {
		t.Fatalf("%d first moves, want 20", len(moves))
	}
	for _, mv := range moves {
		if o, ply, ok := Default().Match(epds(t, mv.SAN)); !ok || ply != 1 || o.ECO == "" {
			t.Errorf("1. %s: %+v at ply %d (%v), want a name", mv.SAN, o, ply, ok)
		}
	}
}

// TestLoadLichess derives a table from files in Lichess's format, as the
// generator does, and refuses a line that does not play, naming it.
func TestLoadLichess(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte("eco\tname\tpgn\n"+body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range LichessFiles {
		write(name, "")
	}
	write("b.tsv", "B00\tKing's Pawn Game\t1. e4\n")
	write("c.tsv", "C20\tKing's Pawn Game\t1. e4 e5\nC40\tKing's Knight Opening\t1. e4 e5 2. Nf3\n")
	tb, err := LoadLichess(dir)
	if err != nil {
		t.Fatal(err)
	}
	if o, ply, ok := tb.Match(epds(t, "e4", "e5", "Nf3", "Nc6")); !ok || o.ECO != "C40" || ply != 3 {
		t.Errorf("Match = %+v at ply %d, want C40 at ply 3", o, ply)
	}
	if tb.Len() != 3 || tb.Digest() == "" || tb.Origin() != LichessSource {
		t.Errorf("%d positions, digest %q, origin %q", tb.Len(), tb.Digest(), tb.Origin())
	}
	if _, err := LoadLichess(filepath.Join(dir, "a.tsv")); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a file for a directory: %v", err)
	}
	write("d.tsv", "D00\tQueen's Pawn Game\t1. d4 d4\n")
	if _, err := LoadLichess(dir); err == nil || !strings.Contains(err.Error(), "d.tsv:2") {
		t.Errorf("an illegal line: %v, want an error naming d.tsv:2", err)
	}
	os.Remove(filepath.Join(dir, "e.tsv"))
	if _, err := LoadLichess(dir); err == nil || !strings.Contains(err.Error(), "lacks e.tsv") {
		t.Errorf("a missing file: %v, want an error naming e.tsv", err)
	}
	var b strings.Builder
	if err := Derive(&b, map[string]io.Reader{"a.tsv": strings.NewReader("eco,name,pgn\n")}, []string{"a.tsv"}); err == nil {
		t.Error("a file with another header is accepted")
	}
}

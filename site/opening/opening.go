// Package opening names chess openings by position: the ECO code and name
// of the longest line of an opening table that a game reaches, exactly as
// the Lichess opening table names that position. The shipped table is
// Lichess's own files (data/lichess/a.tsv to e.tsv, from
// github.com/lichess-org/chess-openings at commit LichessCommit, CC0; see
// data/NOTICE.md), derived once per process into positions; an operator
// can load another checkout of them at run time instead (LoadLichess).
// Every position is computed by match/chessjs, the rules the fold uses,
// never by a parser of this package's own.
package opening

import (
	"bufio"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"vesper/match/chessjs"
)

// LichessCommit is the commit of github.com/lichess-org/chess-openings
// whose files are shipped in data/lichess.
const LichessCommit = "51b8862"

// Source names the shipped table, for pages that show an opening.
const Source = "the Lichess opening table (lichess-org/chess-openings at commit " + LichessCommit + ", CC0)"

// LichessSource names a table LoadLichess derived from an operator's
// checkout of the Lichess files, whose commit this package cannot know.
const LichessSource = "the Lichess opening table as the operator of this site loaded it (CC0)"

// Opening is a named line: its ECO code ("C20") and name ("King's Pawn
// Game").
type Opening struct {
	ECO, Name string
}

// Table maps positions (EPD: a FEN's first four fields) to openings.
type Table struct {
	byEPD  map[string]entry
	digest string
	source string
}

type entry struct {
	Opening
	plies int
}

// Len is the number of positions the table names.
func (t *Table) Len() int {
	if t == nil {
		return 0
	}
	return len(t.byEPD)
}

// Digest identifies the table's content and origin, so that a page naming
// an opening is rendered again when the table or the name it is shown
// under changes.
func (t *Table) Digest() string {
	if t == nil {
		return ""
	}
	return t.digest
}

// Origin names where the table comes from, as pages show it: Source for
// the shipped table and for one Parse read, LichessSource for one
// LoadLichess derived.
func (t *Table) Origin() string {
	if t == nil || t.source == "" {
		return Source
	}
	return t.source
}

// named gives t the origin source, folding it into the digest.
func (t *Table) named(source string) *Table {
	h := sha256.Sum256([]byte(source + "\n" + t.digest))
	t.source, t.digest = source, hex.EncodeToString(h[:])
	return t
}

// Match names the opening of a game from the EPD after each of its plies
// (epds[i] after ply i+1): the entry of the latest position the table
// knows, which is the longest line the game followed or transposed into.
// ply is that position's ply (1-based); ok is false when no position is
// known.
func (t *Table) Match(epds []string) (o Opening, ply int, ok bool) {
	if t == nil {
		return Opening{}, 0, false
	}
	for i := len(epds) - 1; i >= 0; i-- {
		if e, found := t.byEPD[epds[i]]; found {
			return e.Opening, i + 1, true
		}
	}
	return Opening{}, 0, false
}

// EPD is the position part of a FEN: placement, side to move, castling
// and en passant, without the move counters.
func EPD(fen string) string {
	f := strings.Fields(fen)
	if len(f) < 4 {
		return fen
	}
	return strings.Join(f[:4], " ")
}

// Replay plays a line written as PGN movetext ("1. e4 e5 2. Nf3") from the
// start position with match/chessjs and returns the EPD it reaches and its
// number of plies.
func Replay(movetext string) (epd string, plies int, err error) {
	g := chessjs.NewGame()
	for _, tok := range strings.Fields(movetext) {
		if strings.HasSuffix(tok, ".") { // a move number: "1." or "1..."
			continue
		}
		if _, err := g.Move(tok); err != nil {
			return "", 0, fmt.Errorf("opening: %q: move %d %q: %w", movetext, plies+1, tok, err)
		}
		plies++
	}
	if plies == 0 {
		return "", 0, fmt.Errorf("opening: %q has no move", movetext)
	}
	return EPD(g.FEN()), plies, nil
}

// Header is the first line of the derived table.
const Header = "eco\tname\tpgn\tepd"

// Parse reads a derived table: Header, then one line per named line with
// its ECO code, name, PGN movetext and the EPD it reaches. Where two lines
// reach one position, the shorter line names it, then the earlier one.
func Parse(r io.Reader) (*Table, error) {
	h := sha256.New()
	sc := bufio.NewScanner(io.TeeReader(r, h))
	t := &Table{byEPD: map[string]entry{}}
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if n == 1 {
			if line != Header {
				return nil, fmt.Errorf("opening: line 1 is %q, want the header %q", line, Header)
			}
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 || f[0] == "" || f[1] == "" || f[3] == "" {
			return nil, fmt.Errorf("opening: line %d: want 4 tab-separated fields, got %q", n, line)
		}
		plies := len(strings.Fields(f[2])) - strings.Count(f[2], ".")
		if old, ok := t.byEPD[f[3]]; !ok || plies < old.plies {
			t.byEPD[f[3]] = entry{Opening{ECO: f[0], Name: f[1]}, plies}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("opening: %w", err)
	}
	t.digest = hex.EncodeToString(h.Sum(nil))
	return t, nil
}

// Derive turns Lichess's files (a.tsv to e.tsv: eco, name, pgn, with that
// header) into the derived form Parse reads, each line with the EPD its
// moves reach. A line whose moves do not play is an error naming its file
// and line, never skipped.
func Derive(w io.Writer, files map[string]io.Reader, names []string) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(Header + "\n")
	for _, name := range names {
		if err := deriveFile(bw, files[name], name); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func deriveFile(w *bufio.Writer, r io.Reader, name string) error {
	if r == nil {
		return fmt.Errorf("opening: no file %s", name)
	}
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		f := strings.Split(sc.Text(), "\t")
		if n == 1 {
			if sc.Text() != "eco\tname\tpgn" {
				return fmt.Errorf("opening: %s: header %q, want eco, name, pgn", name, sc.Text())
			}
			continue
		}
		if len(f) != 3 || f[0] == "" || f[1] == "" {
			return fmt.Errorf("opening: %s:%d: want eco, name and pgn, got %q", name, n, sc.Text())
		}
		epd, _, err := Replay(f[2])
		if err != nil {
			return fmt.Errorf("opening: %s:%d: %w", name, n, err)
		}
		w.WriteString(f[0] + "\t" + f[1] + "\t" + f[2] + "\t" + epd + "\n")
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("opening: %s: %w", name, err)
	}
	return nil
}

// LichessFiles are the names of Lichess's files, in ECO volume order.
var LichessFiles = []string{"a.tsv", "b.tsv", "c.tsv", "d.tsv", "e.tsv"}

// LoadLichess derives a table from a directory holding Lichess's files
// (a checkout of github.com/lichess-org/chess-openings), for an operator
// who wants the complete table rather than the shipped one. Every file
// must be there and every line must play.
func LoadLichess(dir string) (*Table, error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("opening: %q is not a directory holding the Lichess opening files %s", dir, strings.Join(LichessFiles, ", "))
	}
	files := map[string]io.Reader{}
	for _, name := range LichessFiles {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("opening: %s lacks %s, one of the Lichess opening files: %w", dir, name, err)
		}
		defer f.Close()
		files[name] = f
	}
	var b strings.Builder
	if err := Derive(&b, files, LichessFiles); err != nil {
		return nil, err
	}
	t, err := Parse(strings.NewReader(b.String()))
	if err != nil {
		return nil, err
	}
	return t.named(LichessSource), nil
}

//go:embed data
var data embed.FS

// Default is the shipped table, data/lichess derived (about 0.1 s, once);
// an empty table if the build lost it (no opening is named then;
// TestShippedTable fails).
var Default = sync.OnceValue(func() *Table {
	t, err := shipped()
	if err != nil {
		return &Table{byEPD: map[string]entry{}}
	}
	return t
})

// errNotShipped: the module holds no Lichess files.
var errNotShipped = errors.New("opening: data/lichess/a.tsv ... e.tsv are not in this build (see data/NOTICE.md)")

func shipped() (*Table, error) {
	files := map[string]io.Reader{}
	for _, name := range LichessFiles {
		f, err := data.Open("data/lichess/" + name)
		if err != nil {
			return nil, errNotShipped
		}
		defer f.Close()
		files[name] = f
	}
	var b strings.Builder
	if err := Derive(&b, files, LichessFiles); err != nil {
		return nil, err
	}
	t, err := Parse(strings.NewReader(b.String()))
	if err != nil {
		return nil, err
	}
	t.source = Source
	return t, nil
}

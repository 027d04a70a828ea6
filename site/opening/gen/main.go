// Command gen derives site/opening's table from the Lichess opening names
// (github.com/lichess-org/chess-openings, CC0): it reads a.tsv to e.tsv
// (eco, name, pgn) from -src and writes each line with the EPD its moves
// reach, computed by match/chessjs (opening.Derive), to -o. A line whose
// moves do not play is an error, never skipped silently.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"vesper/site/opening"
)

func main() {
	src := flag.String("src", "", "directory holding the Lichess a.tsv ... e.tsv")
	out := flag.String("o", "", "the derived table to write")
	flag.Parse()
	if *src == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: gen -src DIR -o FILE (DIR: a checkout of lichess-org/chess-openings)")
		os.Exit(2)
	}
	if err := run(*src, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(src, out string) error {
	files := map[string]io.Reader{}
	for _, name := range opening.LichessFiles {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			return err
		}
		files[name] = bytes.NewReader(data)
	}
	var b bytes.Buffer
	if err := opening.Derive(&b, files, opening.LichessFiles); err != nil {
		return err
	}
	return os.WriteFile(out, b.Bytes(), 0o644)
}

// Command gen derives site/opening's table: it reads lines of eco, name
// and pgn (with that header) and writes each with the EPD its moves reach,
// computed by match/chessjs (opening.Derive), to -o. -src is either one
// such file (data/lines.tsv, the table written for vesper) or a directory
// holding the Lichess a.tsv ... e.tsv (a checkout of
// github.com/lichess-org/chess-openings). A line whose moves do not play
// is an error, never skipped silently.
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
	src := flag.String("src", "", "a file of eco, name, pgn lines, or a directory holding the Lichess a.tsv ... e.tsv")
	out := flag.String("o", "", "the derived table to write")
	flag.Parse()
	if *src == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: gen -src FILE|DIR -o FILE (FILE: eco, name, pgn lines; DIR: a checkout of lichess-org/chess-openings)")
		os.Exit(2)
	}
	if err := run(*src, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(src, out string) error {
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	paths := []string{src}
	if fi.IsDir() {
		paths = paths[:0]
		for _, name := range opening.LichessFiles {
			paths = append(paths, filepath.Join(src, name))
		}
	}
	files := map[string]io.Reader{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files[p] = bytes.NewReader(data)
	}
	var b bytes.Buffer
	if err := opening.Derive(&b, files, paths); err != nil {
		return err
	}
	return os.WriteFile(out, b.Bytes(), 0o644)
}

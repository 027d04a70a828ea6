// Command gen derives site/opening's table from the Lichess opening names
// (github.com/lichess-org/chess-openings, CC0): it reads a.tsv to e.tsv
// (eco, name, pgn) from -src and writes each line with the EPD its moves
// reach, computed by match/chessjs, to -o. A line whose moves do not play
// is an error, never skipped silently.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

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
	var b strings.Builder
	b.WriteString(opening.Header + "\n")
	for _, name := range []string{"a.tsv", "b.tsv", "c.tsv", "d.tsv", "e.tsv"} {
		f, err := os.Open(filepath.Join(src, name))
		if err != nil {
			return err
		}
		err = derive(f, name, &b)
		f.Close()
		if err != nil {
			return err
		}
	}
	return os.WriteFile(out, []byte(b.String()), 0o644)
}

// derive copies the lines of one Lichess file with their EPD.
func derive(r io.Reader, name string, w *strings.Builder) error {
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		f := strings.Split(sc.Text(), "\t")
		if n == 1 {
			if strings.Join(f, "\t") != "eco\tname\tpgn" {
				return fmt.Errorf("%s: header %q, want eco, name, pgn", name, sc.Text())
			}
			continue
		}
		if len(f) != 3 {
			return fmt.Errorf("%s:%d: %d fields, want 3", name, n, len(f))
		}
		epd, _, err := opening.Replay(f[2])
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, n, err)
		}
		w.WriteString(f[0] + "\t" + f[1] + "\t" + f[2] + "\t" + epd + "\n")
	}
	return sc.Err()
}

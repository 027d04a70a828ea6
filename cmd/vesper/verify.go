package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"vesper/match"
)

func verifyCommand() *cli.Command {
	return &cli.Command{
		Name:      "verify",
		Usage:     "recompute match summaries from match.json files (PROTOCOL.md section 6)",
		ArgsUsage: "FILE... (- for stdin)",
		Description: "Reads each match.json, drops events whose id or signature is wrong, folds the\n" +
			"rest and prints the summary: a table, or one JSON object per file with --json,\n" +
			"in the order of the arguments. Files are verified in parallel on all cores.\n" +
			"Exit status: 1 if any file could not be read or is not JSON, otherwise 3 if\n" +
			"any file holds no valid match, otherwise 0.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "one JSON summary per line"},
			&cli.Int64Flag{Name: "now", Usage: "unix time for open/expired (default: the largest seen_at of the match)"},
			&cli.Int64Flag{Name: "max-bytes", Value: defaultVerifyMax, Usage: "refuse a file larger than this many bytes (it is read whole)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return fail(exitUsage, "verify: no FILE given (use - for stdin)")
			}
			var now *int64
			if c.IsSet("now") {
				v := c.Int64("now")
				now = &v
			}
			max := c.Int64("max-bytes")
			if max <= 0 {
				return fail(exitUsage, "--max-bytes must be positive (got %d)", max)
			}
			code := verifyFilesMax(c.Args().Slice(), now, c.Bool("json"), max, os.Stdin, os.Stdout, os.Stderr)
			if code != exitOK {
				return &exitError{code: code}
			}
			return nil
		},
	}
}

// verified is one file's outcome: a summary, a no-match line or a read error.
type verified struct {
	path    string
	summary *match.Summary
	noMatch *match.ErrorSummary
	readErr string
}

// defaultVerifyMax is the largest match.json verify reads by default:
// files are read whole, so `vesper verify /dev/zero` or a multi-gigabyte
// file must fail with a clear error rather than exhaust the memory. A
// match.json of 64 MiB is already far beyond any real match.
const defaultVerifyMax = 64 << 20

// errTooBig is the read error of a file over the --max-bytes cap.
type errTooBig struct{ max int64 }

func (e errTooBig) Error() string {
	return fmt.Sprintf("larger than %d bytes (--max-bytes)", e.max)
}

// readCapped reads r whole, failing once it holds more than max bytes.
func readCapped(r io.Reader, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, errTooBig{max}
	}
	return b, nil
}

// readFileCapped is os.ReadFile with a cap, checked before reading when
// the file says its size.
func readFileCapped(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > max {
		return nil, errTooBig{max}
	}
	return readCapped(f, max)
}

// verifyFiles verifies paths in parallel and prints in argument order.
func verifyFiles(paths []string, now *int64, asJSON bool, stdin io.Reader, stdout, stderr io.Writer) int {
	return verifyFilesMax(paths, now, asJSON, defaultVerifyMax, stdin, stdout, stderr)
}

// verifyFilesMax is verifyFiles refusing files over max bytes.
func verifyFilesMax(paths []string, now *int64, asJSON bool, max int64, stdin io.Reader, stdout, stderr io.Writer) int {
	results := verifyAll(paths, now, max, stdin)
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	code := exitOK
	var tw *tabwriter.Writer
	if !asJSON {
		tw = tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "FILE\tMATCH\tGAME\tSTATUS\tRESULT\tREASON\tPLIES\tFINAL\tIGNORED")
	}
	for _, r := range results {
		switch {
		case r.readErr != "":
			code = exitFailure
			fmt.Fprintf(stderr, "vesper: %s: %s\n", r.path, r.readErr)
		case r.noMatch != nil && code == exitOK:
			code = exitRules
		}
		if asJSON {
			out.Write(r.jsonLine())
		} else {
			r.printRow(tw)
		}
	}
	if tw != nil {
		tw.Flush()
	}
	return code
}

// verifyAll verifies paths on GOMAXPROCS workers, results in argument
// order. "-" is stdin, read once however often it is named.
func verifyAll(paths []string, now *int64, max int64, stdin io.Reader) []verified {
	results := make([]verified, len(paths))
	var wg sync.WaitGroup
	next := make(chan int)
	var stdinData []byte
	var stdinErr error
	for _, p := range paths {
		if p == "-" {
			stdinData, stdinErr = readCapped(stdin, max)
			break
		}
	}
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				var data []byte
				var err error
				if paths[i] == "-" {
					data, err = stdinData, stdinErr
				} else {
					data, err = readFileCapped(paths[i], max)
				}
				results[i] = verifyOne(paths[i], data, err, now)
			}
		}()
	}
	for i := range paths {
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}

// jsonLine is r's line of the --json output.
func (r *verified) jsonLine() []byte {
	switch {
	case r.readErr != "":
		return match.MarshalLine(map[string]string{"file": r.path, "error": r.readErr})
	case r.noMatch != nil:
		return match.MarshalLine(r.noMatch)
	}
	return match.MarshalLine(r.summary)
}

// printRow is r's row of the table.
func (r *verified) printRow(tw io.Writer) {
	switch {
	case r.readErr != "":
		fmt.Fprintf(tw, "%s\t-\t-\terror\t%s\t\t\t\t\n", r.path, r.readErr)
	case r.noMatch != nil:
		id := "-"
		if r.noMatch.Match != nil {
			id = short(*r.noMatch.Match)
		}
		fmt.Fprintf(tw, "%s\t%s\t-\tinvalid\t%s\t\t\t\t\n", r.path, id, r.noMatch.Error)
	default:
		printSummaryRow(tw, r.path, r.summary)
	}
}

func printSummaryRow(w io.Writer, path string, s *match.Summary) {
	result, reason, final := "-", "-", "no"
	if s.Result != nil {
		result = *s.Result
	}
	if s.Reason != nil {
		reason = string(*s.Reason)
	}
	if s.Final {
		final = "by " + string(*s.FinalBy)
	}
	fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%d\n", path, short(s.Match), s.Game, s.Status, result, reason, s.Plies, final, len(s.Ignored))
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

func verifyOne(path string, data []byte, readErr error, now *int64) verified {
	if readErr != nil {
		msg := readErr.Error()
		if pe, ok := readErr.(*os.PathError); ok {
			msg = pe.Err.Error()
		}
		return verified{path: path, readErr: "cannot read: " + msg}
	}
	f, err := match.ParseFile(data)
	if err != nil {
		return verified{path: path, readErr: "not a match.json: " + strings.TrimPrefix(err.Error(), "json: ")}
	}
	id := f.Match
	if id == "" {
		found, err := match.FindChallenge(f.Events)
		if err != nil {
			return verified{path: path, noMatch: &match.ErrorSummary{Error: err.Error()}}
		}
		id = found
	}
	st, err := match.Fold(id, f.Events, f.SeenAt)
	if err != nil {
		return verified{path: path, noMatch: &match.ErrorSummary{Match: &id, Error: err.Error()}}
	}
	t := f.Now(st)
	if now != nil {
		t = *now
	}
	sum := st.Summary(t)
	return verified{path: path, summary: &sum}
}

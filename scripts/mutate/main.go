// Command mutate checks that the tests guard the rules: it applies each
// mutant of mutants.go (one small source change that breaks one clause of
// PROTOCOL.md, or one bookkeeping rule) on its own, runs the tests of the
// mutant's package, and reports whether a test failed (the mutant is
// killed) or every test passed (it survived: no test guards that clause).
//
// The source tree is never written: each mutated file goes to a temporary
// directory and reaches the compiler through `go test -overlay`, so a run
// that is interrupted leaves nothing to clean up.
//
// Usage, from the repository root:
//
//	go run ./scripts/mutate [-run SUBSTRING] [-short] [-skip REGEXP] [-markdown]
//
// The tests of each package are first run without a mutant: a package
// whose tests fail already (chess.js not installed for match/chessjs's
// conformance test, say) would kill every mutant, so its mutants are
// reported "no baseline" instead (-skip passes a test pattern to leave out
// to go test, as in -skip '^TestConformance$').
//
// A mutant names the file its code was last seen in. When that file no
// longer holds Old exactly once (a split moved the code to another file of
// the package), Old is looked for in every non-test Go file of the file's
// directory, and used where it occurs exactly once in all of them; the
// report then names the file it was found in.
//
// It exits 1 when a mutant survived, and 2 when a mutant no longer applies
// (its Old text is not found exactly once: the code changed, update the
// list), does not compile, or has no baseline.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// mutant is one source change: Old, found exactly once in File (or, when
// File no longer holds it, in exactly one non-test file of File's
// directory), becomes New. Pkg is the package whose tests must fail;
// Clause names the rule broken.
type mutant struct {
	Clause   string
	File     string
	Old, New string
	Pkg      string // packages, space-separated; "" means ./match
}

// outcome is what running the tests against a mutant gave.
type outcome struct {
	verdict string // "killed", "SURVIVED", "stale", "no build", "no baseline"
	by      string // the first failing test, for a killed mutant
	file    string // where Old was found, when not in the mutant's File
}

func main() {
	run := flag.String("run", "", "only mutants whose clause or file contains this")
	short := flag.Bool("short", false, "pass -short to go test")
	markdown := flag.Bool("markdown", false, "print a Markdown table (for docs/CONTRIBUTING.md)")
	skip := flag.String("skip", "", "tests to leave out (go test -skip)")
	flag.Parse()
	var extra []string
	if *short {
		extra = append(extra, "-short")
	}
	if *skip != "" {
		extra = append(extra, "-skip", *skip)
	}
	tmp, err := os.MkdirTemp("", "mutate")
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(2)
	}
	defer os.RemoveAll(tmp)
	status := 0
	if *markdown {
		fmt.Println("| # | clause | file | mutation | result |")
		fmt.Println("|---|---|---|---|---|")
	}
	n := 0
	baseline := map[string]bool{}
	for _, m := range mutants {
		if *run != "" && !strings.Contains(m.Clause, *run) && !strings.Contains(m.File, *run) {
			continue
		}
		n++
		pkg := m.pkg()
		if _, done := baseline[pkg]; !done {
			out, err := goTest(pkg, extra)
			baseline[pkg] = err == nil
			if err != nil {
				fmt.Fprintf(os.Stderr, "mutate: %s fails without a mutant:\n%s\n", pkg, out)
			}
		}
		o := outcome{verdict: "no baseline"}
		if baseline[pkg] {
			o = try(m, tmp, extra)
		}
		switch o.verdict {
		case "SURVIVED":
			status = max(status, 1)
		case "stale", "no build", "no baseline":
			status = 2
		}
		report(os.Stdout, n, m, o, *markdown)
	}
	os.Exit(status)
}

func report(w io.Writer, n int, m mutant, o outcome, markdown bool) {
	change := fmt.Sprintf("`%s` -> `%s`", oneLine(m.Old), oneLine(m.New))
	result := o.verdict
	if o.by != "" {
		result += " by " + o.by
	}
	file := m.File
	if o.file != "" {
		file = o.file
	}
	if markdown {
		fmt.Fprintf(w, "| %d | %s | %s | %s | %s |\n", n, m.Clause, file, strings.ReplaceAll(change, "|", `\|`), result)
		return
	}
	fmt.Fprintf(w, "%3d %-9s %s: %s\n    %s %s\n", n, o.verdict, file, m.Clause, change, o.by)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

var failLine = regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)`)

func (m mutant) pkg() string {
	if m.Pkg == "" {
		return "./match"
	}
	return m.Pkg
}

// goTest runs the tests of pkg with args before it, bounded in time.
func goTest(pkg string, args []string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	all := append(append([]string{"test", "-count=1"}, args...), strings.Fields(pkg)...)
	return exec.CommandContext(ctx, "go", all...).CombinedOutput()
}

// try applies m through an overlay and runs its package's tests.
func try(m mutant, tmp string, extra []string) outcome {
	file, src := locate(m)
	if file == "" {
		return outcome{verdict: "stale"}
	}
	moved := ""
	if file != m.File {
		moved = file
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return outcome{verdict: "stale"}
	}
	mutated := filepath.Join(tmp, filepath.Base(file))
	overlay := filepath.Join(tmp, "overlay.json")
	body, _ := json.Marshal(map[string]map[string]string{"Replace": {abs: mutated}})
	if os.WriteFile(mutated, bytes.Replace(src, []byte(m.Old), []byte(m.New), 1), 0o644) != nil ||
		os.WriteFile(overlay, body, 0o644) != nil {
		return outcome{verdict: "stale"}
	}
	out, err := goTest(m.pkg(), append([]string{"-overlay=" + overlay}, extra...))
	switch {
	case err == nil:
		return outcome{verdict: "SURVIVED", file: moved}
	case bytes.Contains(out, []byte("[build failed]")) || bytes.Contains(out, []byte("[setup failed]")):
		return outcome{verdict: "no build", by: firstLine(out), file: moved}
	}
	if f := failLine.FindSubmatch(out); f != nil {
		return outcome{verdict: "killed", by: string(f[1]), file: moved}
	}
	return outcome{verdict: "killed", by: firstLine(out), file: moved}
}

// locate is the file to mutate and its text: m.File when it holds Old
// exactly once, else the one non-test Go file of its directory that does,
// when Old occurs exactly once in all of them together (code moved between
// the package's files); "" when neither.
func locate(m mutant) (string, []byte) {
	old := []byte(m.Old)
	if src, err := os.ReadFile(m.File); err == nil && bytes.Count(src, old) == 1 {
		return m.File, src
	}
	names, err := filepath.Glob(filepath.Join(filepath.Dir(m.File), "*.go"))
	if err != nil {
		return "", nil
	}
	found, total := "", 0
	var text []byte
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			return "", nil
		}
		if n := bytes.Count(src, old); n > 0 {
			found, text, total = name, src, total+n
		}
	}
	if total != 1 {
		return "", nil
	}
	return found, text
}

func firstLine(out []byte) string {
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}

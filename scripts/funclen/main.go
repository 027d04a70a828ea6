// Command funclen prints function lengths across the repository, the
// figure ARCHITECTURE.md's "small functions" rule is judged by (issue 29):
// how many functions run over 60 and over 80 lines, the median and 90th
// percentile, and the longest functions, for non-test and test files
// separately (table-driven tests are long by nature and would hide the
// code's own figures). Generated files ("// Code generated ... DO NOT
// EDIT.") are left out: nobody edits them to make them shorter.
//
// A function is a declaration with a body (functions and methods, not the
// literals inside them), measured from "func" to its closing brace.
//
// It also prints the non-test files over 400 lines, longest first (issue
// 39: files grew long while functions got short); a file is its lines.
//
// Usage, from the repository root:
//
//	go run ./scripts/funclen [-n 10] [dir]
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// fn is one measured function.
type fn struct {
	pos   string // file:line
	name  string // "Recv.Name" for methods
	lines int
}

// longFile is the line count past which a file is listed as long.
const longFile = 400

// file is one measured non-test file.
type file struct {
	path  string
	lines int
}

// stats is the figures for one group of files.
type stats struct {
	funcs       []fn // longest first
	over60      int
	over80      int
	median, p90 int
}

func main() {
	top := flag.Int("n", 10, "how many of the longest non-test functions to list")
	flag.Parse()
	root := "."
	if flag.NArg() > 0 {
		root = flag.Arg(0)
	}
	code, tests, files, err := walk(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "funclen:", err)
		os.Exit(1)
	}
	report(os.Stdout, code, tests, *top)
	reportFiles(os.Stdout, files)
}

// walk measures every .go file under root, skipping hidden directories,
// testdata and node_modules as the go tool does, and returns the line
// counts of the non-test files that are not generated.
func walk(root string) (code, tests stats, files []file, err error) {
	fset := token.NewFileSet()
	var codeFns, testFns []fn
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") ||
				name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fns, generated, err := measureFile(fset, path, src)
		if err != nil {
			return err
		}
		if strings.HasSuffix(name, "_test.go") {
			testFns = append(testFns, fns...)
		} else {
			codeFns = append(codeFns, fns...)
			if !generated {
				files = append(files, file{filepath.ToSlash(path), lineCount(src)})
			}
		}
		return nil
	})
	return summarize(codeFns), summarize(testFns), files, err
}

// lineCount is the lines of src, a last line without a newline included.
func lineCount(src []byte) int {
	n := strings.Count(string(src), "\n")
	if len(src) > 0 && src[len(src)-1] != '\n' {
		n++
	}
	return n
}

// measure returns the functions of one source file, none if it is generated.
func measure(fset *token.FileSet, path string, src []byte) ([]fn, error) {
	fns, _, err := measureFile(fset, path, src)
	return fns, err
}

// measureFile is measure, and whether the file is generated.
func measureFile(fset *token.FileSet, path string, src []byte) ([]fn, bool, error) {
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	if ast.IsGenerated(f) {
		return nil, true, nil
	}
	var fns []fn
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		start := fset.Position(fd.Pos())
		end := fset.Position(fd.End())
		fns = append(fns, fn{
			pos:   fmt.Sprintf("%s:%d", filepath.ToSlash(start.Filename), start.Line),
			name:  funcName(fd),
			lines: end.Line - start.Line + 1,
		})
	}
	return fns, false, nil
}

func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch r := t.(type) {
	case *ast.Ident:
		return r.Name + "." + fd.Name.Name
	case *ast.IndexExpr: // a generic receiver, T[E]
		if id, ok := r.X.(*ast.Ident); ok {
			return id.Name + "." + fd.Name.Name
		}
	case *ast.IndexListExpr:
		if id, ok := r.X.(*ast.Ident); ok {
			return id.Name + "." + fd.Name.Name
		}
	}
	return fd.Name.Name
}

// summarize sorts fns longest first (ties by position, so the output is
// stable) and computes the figures. Percentiles are nearest-rank.
func summarize(fns []fn) stats {
	slices.SortFunc(fns, func(a, b fn) int {
		if a.lines != b.lines {
			return b.lines - a.lines
		}
		return strings.Compare(a.pos, b.pos)
	})
	s := stats{funcs: fns}
	for _, f := range fns {
		if f.lines > 60 {
			s.over60++
		}
		if f.lines > 80 {
			s.over80++
		}
	}
	s.median, s.p90 = percentile(fns, 50), percentile(fns, 90)
	return s
}

// percentile is the nearest-rank percentile of the lengths of fns, which
// are sorted longest first.
func percentile(fns []fn, pct int) int {
	if len(fns) == 0 {
		return 0
	}
	rank := (pct*len(fns) + 99) / 100 // ceil(pct/100 * n), 1-based from the shortest
	return fns[len(fns)-max(rank, 1)].lines
}

func report(w io.Writer, code, tests stats, top int) {
	for _, g := range []struct {
		name string
		s    stats
	}{{"non-test", code}, {"test", tests}} {
		fmt.Fprintf(w, "%-8s  %5d functions, %3d over 60 lines, %3d over 80, median %d, p90 %d\n",
			g.name, len(g.s.funcs), g.s.over60, g.s.over80, g.s.median, g.s.p90)
	}
	fmt.Fprintf(w, "longest non-test functions:\n")
	for _, f := range code.funcs[:min(top, len(code.funcs))] {
		fmt.Fprintf(w, "%5d  %s  %s\n", f.lines, f.pos, f.name)
	}
}

// reportFiles prints how many non-test files there are, how many run over
// longFile lines, the longest, and each long one, longest first.
func reportFiles(w io.Writer, files []file) {
	slices.SortFunc(files, func(a, b file) int {
		if a.lines != b.lines {
			return b.lines - a.lines
		}
		return strings.Compare(a.path, b.path)
	})
	long := 0
	for long < len(files) && files[long].lines > longFile {
		long++
	}
	largest := "none"
	if len(files) > 0 {
		largest = files[0].path + " (" + strconv.Itoa(files[0].lines) + ")"
	}
	fmt.Fprintf(w, "non-test files %d, %d over %d lines, largest %s\n", len(files), long, longFile, largest)
	for _, f := range files[:long] {
		fmt.Fprintf(w, "%5d  %s\n", f.lines, f.path)
	}
}

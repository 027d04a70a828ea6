package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLocateFollowsASplit: a mutant whose code moved to another file of
// its package still applies there; one whose code is gone, or is now in
// two places, is stale; a test file never counts.
func TestLocateFollowsASplit(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("old.go", "package p\n")
	write("new.go", "package p\nfunc f() bool { return x > 1 }\n")
	write("new_test.go", "package p\nvar _ = x > 1\n")
	m := mutant{File: filepath.Join(dir, "old.go"), Old: "x > 1", New: "x >= 1"}
	if got, src := locate(m); got != filepath.Join(dir, "new.go") || len(src) == 0 {
		t.Fatalf("located %q, want new.go", got)
	}
	m.File = filepath.Join(dir, "gone.go")
	if got, _ := locate(m); got != filepath.Join(dir, "new.go") {
		t.Fatalf("from a removed file: located %q, want new.go", got)
	}
	write("other.go", "package p\nfunc g() bool { return x > 1 }\n")
	if got, _ := locate(m); got != "" {
		t.Fatalf("located %q with the code in two files, want stale", got)
	}
	m.File = filepath.Join(dir, "other.go")
	if got, _ := locate(m); got != m.File {
		t.Fatalf("located %q, want the named file, which holds it once", got)
	}
}

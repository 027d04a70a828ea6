package prose

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestContributingNamesEveryPackage: docs/CONTRIBUTING.md's table names
// every directory that holds Go files, so a new package is documented
// where contributors look (issue 39).
func TestContributingNamesEveryPackage(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "CONTRIBUTING.md"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		dir := rel(root, filepath.Dir(path))
		if dir == "." || seen[dir] {
			return nil
		}
		seen[dir] = true
		if !strings.Contains(string(doc), "| `"+dir+"` |") {
			t.Errorf("docs/CONTRIBUTING.md's package table has no row for %s", dir)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) < 40 {
		t.Fatalf("found %d packages: the walk missed the tree", len(seen))
	}
}

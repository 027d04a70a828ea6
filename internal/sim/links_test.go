package sim

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestBrokenLinks: a link to a page that was never built is found, from
// any depth; links that resolve, fragments and other sites are not.
func TestBrokenLinks(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("index.html", `<a href="m/a.html">a</a> <a href="p/gone.html#x">gone</a> <a href="https://e.example/">out</a> <a href="#top">top</a>`)
	write("m/a.html", `<a href="../p/b.html">b</a> <a href="../p/missing.html">m</a> <a href="a.json">json</a> <a href="../index.html?x=1&amp;y=2">home</a>`)
	write("m/a.json", `{}`)
	write("p/b.html", `<a href="../m/a.html">a</a>`)
	got, err := brokenLinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	want := []string{"index.html: p/gone.html", "m/a.html: ../p/missing.html"}
	if !slices.Equal(got, want) {
		t.Errorf("broken links %q, want %q", got, want)
	}
}

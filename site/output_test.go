package site

import (
	"os"
	"path/filepath"
	"testing"
)

// write never writes through a name that is already there: it may be a
// hard link into the published build (a link the build made, or one left
// by an interrupted run). It replaces the name and leaves the linked file
// as it was.
func TestWriteReplacesALeftoverLink(t *testing.T) {
	dir := t.TempDir()
	published := filepath.Join(dir, "published.html")
	if err := os.WriteFile(published, []byte("published"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := &output{dir: filepath.Join(dir, "build")}
	if err := os.Mkdir(o.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(published, filepath.Join(o.dir, "index.html")); err != nil {
		t.Skip("no hard links here:", err)
	}
	if err := o.write("index.html", []byte("new")); err != nil {
		t.Fatal(err)
	}
	if err := o.write("fresh.html", []byte("fresh")); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{published: "published", filepath.Join(o.dir, "index.html"): "new", filepath.Join(o.dir, "fresh.html"): "fresh"} {
		if got, err := os.ReadFile(path); err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", filepath.Base(path), got, err, want)
		}
	}
}

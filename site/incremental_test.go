package site

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"vesper/match"
)

// snapshot records the file identity (inode) of every file of the
// published build, to tell rewritten files from carried-over ones.
func snapshot(t *testing.T, out string) map[string]os.FileInfo {
	t.Helper()
	root, err := filepath.EvalSymlinks(out)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]os.FileInfo{}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == manifestName {
			return err
		}
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = fi
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// rewritten lists the files of after that are not the same file as in
// before (new or rewritten), sorted.
func rewritten(before, after map[string]os.FileInfo) []string {
	var out []string
	for p, fi := range after {
		if old, ok := before[p]; !ok || !os.SameFile(old, fi) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

func refold(t *testing.T, f *fixture, name string) {
	t.Helper()
	s := foldT(t, f.games[name])
	for i, old := range f.in.States {
		if old.Match == s.Match {
			f.in.States[i] = s
		}
	}
	for _, ev := range f.games[name].Events {
		if _, ok := f.in.SeenAt[ev.ID]; !ok {
			f.in.SeenAt[ev.ID] = int64(ev.CreatedAt) + 2
		}
	}
}

func TestIncremental(t *testing.T) {
	f := newFixture(t)
	out := filepath.Join(t.TempDir(), "site")
	build := func() Stats {
		t.Helper()
		st, err := Build(f.in, out)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	first := build()
	if first.Written != first.Pages || first.Unchanged != 0 {
		t.Fatalf("first build %+v: want everything written", first)
	}
	snap := snapshot(t, out)
	if len(snap) != first.Pages {
		t.Fatalf("%d files on disk, stats say %d", len(snap), first.Pages)
	}

	t.Run("same input", func(t *testing.T) {
		st := build()
		if st.Written != 0 || st.Unchanged != first.Pages {
			t.Errorf("stats %+v, want every page unchanged", st)
		}
		next := snapshot(t, out)
		if got := rewritten(snap, next); len(got) != 0 {
			t.Errorf("rewritten %v", got)
		}
		snap = next
	})

	t.Run("one move", func(t *testing.T) {
		m := f.games["active"]
		m.Move(bob, 6, "a7a6", m.Events[len(m.Events)-1].CreatedAt.Time().Unix()+50)
		refold(t, f, "active")
		st := build()
		next := snapshot(t, out)
		id := f.ids["active"]
		want := []string{"index.html", "m/" + id + ".html", "m/" + id + ".json", "m/" + id + ".pgn", "matches.json"}
		if got := rewritten(snap, next); !reflect.DeepEqual(got, want) {
			t.Errorf("rewritten %v, want %v", got, want)
		}
		if st.Written != len(want) {
			t.Errorf("stats %+v, want %d written", st, len(want))
		}
		snap = next
	})

	t.Run("profile renamed", func(t *testing.T) {
		p := f.in.Profiles[carol.PublicKey()]
		p.Name = "Caroline"
		f.in.Profiles[carol.PublicKey()] = p
		build()
		next := snapshot(t, out)
		got := rewritten(snap, next)
		// Carol's matches, the one where she posted a stray result, her
		// page, and every page that names her.
		for _, name := range []string{"timeout", "ruling", "invite", "active"} {
			if !slices.Contains(got, "m/"+f.ids[name]+".html") {
				t.Errorf("%s page not rewritten; rewritten %v", name, got)
			}
		}
		for _, name := range []string{"mate", "five", "open", "expired"} {
			if slices.Contains(got, "m/"+f.ids[name]+".html") {
				t.Errorf("%s page rewritten though carol is not in it", name)
			}
		}
		if !slices.Contains(got, "p/"+carol.PublicKey()+".html") {
			t.Error("carol's page not rewritten")
		}
		snap = next
	})

	t.Run("half an hour later", func(t *testing.T) {
		// The open challenge becomes one the daemon may accept: its page
		// says so. No other match page changes; its match.json is
		// re-rendered but identical, so it is carried over.
		f.in.Now += 1800
		build()
		var pages []string
		for _, p := range rewritten(snap, snapshot(t, out)) {
			if strings.HasPrefix(p, "m/") {
				pages = append(pages, p)
			}
		}
		if want := []string{"m/" + f.ids["open"] + ".html"}; !reflect.DeepEqual(pages, want) {
			t.Errorf("rewritten match files %v, want %v", pages, want)
		}
	})

	// Only the published build and the one before it remain.
	entries, err := os.ReadDir(filepath.Dir(out))
	if err != nil {
		t.Fatal(err)
	}
	builds := 0
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), buildPrefix(out)) {
			builds++
		}
	}
	if builds != 2 {
		t.Errorf("%d build directories left, want 2", builds)
	}
}

// TestSwapIsAtomic reads pages while builds replace the site: every read
// must find a complete file, whichever build it comes from.
func TestSwapIsAtomic(t *testing.T) {
	f := newFixture(t)
	out := filepath.Join(t.TempDir(), "site")
	if _, err := Build(f.in, out); err != nil {
		t.Fatal(err)
	}
	pages := []string{"index.html", "m/" + f.ids["active"] + ".html", "matches.json"}
	var stop atomic.Bool
	var reads atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan string, 10)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; !stop.Load(); n++ {
				p := pages[(n+i)%len(pages)]
				data, err := os.ReadFile(filepath.Join(out, p))
				switch {
				case err != nil:
					errs <- err.Error()
					return
				case !bytes.HasSuffix(data, []byte("</html>\n")) && !bytes.HasSuffix(data, []byte("}\n")):
					errs <- p + ": incomplete read"
					return
				}
				reads.Add(1)
			}
		}()
	}
	deadline := time.Now().Add(5 * time.Second)
	for i := 0; i < 15 && time.Now().Before(deadline); i++ {
		f.in.Now += 61 // the index changes with every build
		if i%3 == 0 {
			f.in.Now += 2 * match.MoveClock // and so does the active match page
		}
		if _, err := Build(f.in, out); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if reads.Load() == 0 {
		t.Error("no read happened")
	}
}

func TestPublishReplacesPlainDirectory(t *testing.T) {
	f := newFixture(t)
	out := filepath.Join(t.TempDir(), "site")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "old.html"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(f.in, out); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(out)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("%s is not a symlink after the build (%v)", out, err)
	}
	if _, err := os.Stat(filepath.Join(out, "index.html")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(out, "old.html")); err == nil {
		t.Error("the old directory's file is still published")
	}

	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(f.in, file); err == nil {
		t.Error("building over a regular file succeeded")
	}
	entries, _ := os.ReadDir(filepath.Dir(file))
	if len(entries) != 1 {
		t.Errorf("a failed build left %d entries beside it", len(entries)-1)
	}
}

// TestMatchJSONVerifies reads every published match.json the way
// `vesper verify` does and gets the summary the file carries.
func TestMatchJSONVerifies(t *testing.T) {
	f := newFixture(t)
	out, _ := buildFixture(t, f.in)
	for name, id := range f.ids {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(out, "m", id+".json"))
			if err != nil {
				t.Fatal(err)
			}
			file, err := match.ParseFile(data)
			if err != nil {
				t.Fatal(err)
			}
			if file.Dropped != 0 || file.Match != id {
				t.Fatalf("dropped %d events, match %q", file.Dropped, file.Match)
			}
			s, err := match.Fold(file.Match, file.Events, file.SeenAt)
			if err != nil {
				t.Fatal(err)
			}
			want := string(match.MarshalLine(s.Summary(now)))
			if !strings.Contains(string(data), `"summary":`+strings.TrimSuffix(want, "\n")+"}\n") {
				t.Errorf("summary in the file differs from the refold:\n%s", want)
			}
			if len(file.Events) != len(f.games[name].Events) {
				t.Errorf("%d events, want %d", len(file.Events), len(f.games[name].Events))
			}
		})
	}
}

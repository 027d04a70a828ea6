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

	"vesper/internal/testkit"
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
		if err != nil || d.IsDir() || d.Name() == manifestName || d.Name() == cardsName {
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
	// Each reader says when it has read once (or given up), and the builds
	// start after that: the reads overlap them however late a loaded host
	// schedules the readers.
	ready := make(chan struct{}, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			started := sync.OnceFunc(func() { ready <- struct{}{} })
			defer started()
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
				started()
			}
		}()
	}
	<-ready
	<-ready
	deadline := time.Now().Add(testkit.Scale(5 * time.Second))
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
	for _, c := range []struct{ name, file string }{
		{"empty", ""},
		// A build copied or moved there: its manifest marks it as a site.
		{"a copied build", manifestName},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "site")
			if err := os.MkdirAll(out, 0o755); err != nil {
				t.Fatal(err)
			}
			if c.file != "" {
				if err := os.WriteFile(filepath.Join(out, c.file), []byte("old"), 0o644); err != nil {
					t.Fatal(err)
				}
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
		})
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

// TestRefusesForeignDirectory is issue 13 item 6: --site-dir pointed at a
// home directory deleted thesis.txt and .bashrc on the first build. A
// non-empty directory that is not a site build, or a symlink to anything
// but one of our builds, is refused before anything is written, and stays
// as it was, also on a second try.
func TestRefusesForeignDirectory(t *testing.T) {
	f := newFixture(t)
	home := filepath.Join(t.TempDir(), "home")
	files := map[string]string{"thesis.txt": "four years", ".bashrc": "PS1=$", "src/main.go": "package main"}
	for name, data := range files {
		p := filepath.Join(home, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(t.TempDir(), "public")
	if err := os.Symlink(home, link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, out, want string }{
		{"home directory", home, "non-empty directory that is not a vesper site build"},
		{"symlink elsewhere", link, "not to one of this site's builds"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for range 2 {
				_, err := Build(f.in, c.out)
				if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.out) {
					t.Fatalf("err = %v, want one naming %s and saying %q", err, c.out, c.want)
				}
			}
			for name, want := range files {
				got, err := os.ReadFile(filepath.Join(home, filepath.FromSlash(name)))
				if err != nil || string(got) != want {
					t.Errorf("%s: %q, %v; want %q", name, got, err, want)
				}
			}
			entries, err := os.ReadDir(filepath.Dir(c.out))
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".") {
					t.Errorf("a refused build left %s beside %s", e.Name(), c.out)
				}
			}
		})
	}
	if target, err := os.Readlink(link); err != nil || target != home {
		t.Errorf("the symlink now points at %q (%v)", target, err)
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

// TestIncrementalMatchesFull: after a series of incremental builds (a move,
// a new rated game that changes ratings shown on older match pages, a
// renamed house that changes who is flagged as imitating it, time passing),
// the published site is byte for byte what a fresh build of the same input
// writes. A match key that missed an input would leave a stale page here.
func TestIncrementalMatchesFull(t *testing.T) {
	f := newFixture(t)
	out := filepath.Join(t.TempDir(), "site")
	build := func() {
		t.Helper()
		if _, err := Build(f.in, out); err != nil {
			t.Fatal(err)
		}
	}
	build()
	m := f.games["active"]
	m.Move(bob, 6, "a7a6", m.Events[len(m.Events)-1].CreatedAt.Time().Unix()+50)
	refold(t, f, "active")
	build()

	// A game finished before the mate changes the ratings the mate page
	// shows for Alice and Bob.
	g := testkit.NewMatch(bob, alice, "chess", "", t0-5000)
	g.Accept(t0 - 4990)
	last := g.Play([]string{"f2f3", "e7e5", "g2g4", "d8h4"}, t0-4980, 5)
	s := foldT(t, g)
	g.Result(bob, result(s, "second", "checkmate"), last+1)
	g.Result(alice, result(s, "second", "checkmate"), last+2)
	f.in.States = append(f.in.States, foldT(t, g))
	f.in.RatingGames = RatingGames(f.in.States)
	build()
	compareFull(t, f.in, out)

	p := f.in.Profiles[daemon.PublicKey()]
	p.Name = "Bob" // now "Bob the Bot" imitates the house
	f.in.Profiles[daemon.PublicKey()] = p
	f.in.Now += 1800
	build()

	got := compareFull(t, f.in, out)
	mate := string(got["m/"+f.ids["mate"]+".html"])
	if !strings.Contains(mate, `class="tag warn">not the house`) {
		t.Error("the mate page does not flag Bob the Bot once the house is named Bob")
	}
}

// compareFull builds in afresh and compares it with the site at out.
func compareFull(t *testing.T, in Input, out string) map[string][]byte {
	t.Helper()
	fresh, _ := buildFixture(t, in)
	got, want := treeBytes(t, out), treeBytes(t, fresh)
	for rel, w := range want {
		if g, ok := got[rel]; !ok {
			t.Errorf("%s missing from the incremental build", rel)
		} else if !bytes.Equal(g, w) {
			t.Errorf("%s differs from a full build at byte %d", rel, firstDiff(g, w))
		}
	}
	for rel := range got {
		if _, ok := want[rel]; !ok {
			t.Errorf("%s only in the incremental build", rel)
		}
	}
	return got
}

// treeBytes reads every file of a published site but the manifest, whose
// keys legitimately record how each file was made.
func treeBytes(t *testing.T, out string) map[string][]byte {
	t.Helper()
	root, err := filepath.EvalSymlinks(out)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == manifestName {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

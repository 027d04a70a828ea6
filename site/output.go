package site

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// The published site is a symlink, outDir, to a sibling directory
// ".<name>.build-XXXX" that holds one complete build. A build writes a new
// sibling, then renames a fresh symlink over outDir: rename(2) replaces the
// link atomically, so a reader resolves either the old build or the new one,
// never a mix. Siblings stay on the same filesystem, which both the rename
// and the hard links need. The replaced build is kept until the next build,
// for readers that resolved the link just before the swap.
//
// Each build directory holds manifestName: one line per file with the
// content hash and, for match files, the key of the inputs they were
// rendered from. The next build hard-links a file from the previous build
// instead of rewriting it when its key (match files: no rendering at all)
// or its content hash (other pages) is unchanged. Files are never modified
// in place, only created, so sharing inodes between builds is safe.

const manifestName = ".manifest"

type entry struct {
	sum string // hex sha256 of the content
	key string // input key, "-" when the file is compared by content
}

// output is one build in progress. Its methods may be called from several
// goroutines: prev is read-only during a build, and mu guards the rest.
type output struct {
	dir     string // the new build directory
	prevDir string // the build outDir points at now, "" if none
	prev    map[string]entry

	mu       sync.Mutex
	manifest map[string]entry
	stats    Stats

	// swept is closed when the builds older than the published one are
	// removed: that runs beside the build (a build of 100,000 matches is
	// 400,000 files to unlink, seconds the build need not wait for) and
	// publish and abort wait for it.
	swept chan struct{}
}

// buildPrefix is the name prefix of outDir's build directories.
func buildPrefix(outDir string) string { return "." + filepath.Base(outDir) + ".build-" }

// openOutput prepares a new build directory beside outDir and reads the
// manifest of the build outDir currently points at.
func openOutput(outDir string) (*output, error) {
	outDir = filepath.Clean(outDir)
	parent, base := filepath.Dir(outDir), filepath.Base(outDir)
	if base == "." || base == ".." || base == string(filepath.Separator) {
		return nil, fmt.Errorf("site: output directory %q has no name", outDir)
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("site: %w", err)
	}
	if err := checkOutDir(outDir); err != nil {
		return nil, err
	}
	o := &output{prev: map[string]entry{}, manifest: map[string]entry{}}
	if o.prevDir = publishedBuild(outDir); o.prevDir != "" {
		o.prev = readManifest(filepath.Join(o.prevDir, manifestName))
	}
	dir, err := os.MkdirTemp(parent, buildPrefix(outDir))
	if err != nil {
		return nil, fmt.Errorf("site: %w", err)
	}
	// MkdirTemp makes 0700; a web server running as another user must read.
	if err := os.Chmod(dir, 0o755); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("site: %w", err)
	}
	o.dir = dir
	o.swept = make(chan struct{})
	go func() {
		defer close(o.swept)
		o.cleanup(outDir)
	}()
	return o, nil
}

func readManifest(path string) map[string]entry {
	m := map[string]entry{}
	f, err := os.Open(path)
	if err != nil {
		return m // no previous manifest: everything is written
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), " ", 3)
		if len(parts) == 3 && validSitePath(parts[2]) {
			m[parts[2]] = entry{sum: parts[0], key: parts[1]}
		}
	}
	return m
}

// validSitePath accepts only the relative paths a build produces: lowercase
// letters, digits, '-', '.', '_' and '/', no empty or dot segments.
func validSitePath(p string) bool {
	if p == "" || len(p) > 200 {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
		for _, c := range []byte(seg) {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
				return false
			}
		}
	}
	return true
}

func sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// mkdir creates a subdirectory of the build.
func (o *output) mkdir(rel string) error {
	return os.MkdirAll(filepath.Join(o.dir, filepath.FromSlash(rel)), 0o755)
}

// reuse links the files of paths from the previous build when all of them
// were rendered from the same key. It reports false, having linked nothing
// that will be kept, when any is missing: the caller then renders them.
func (o *output) reuse(key string, paths ...string) bool {
	if o.prevDir == "" {
		return false
	}
	for _, p := range paths {
		if e, ok := o.prev[p]; !ok || e.key != key {
			return false
		}
	}
	for i, p := range paths {
		if err := o.link(p); err != nil {
			for _, q := range paths[:i] {
				os.Remove(filepath.Join(o.dir, filepath.FromSlash(q)))
			}
			return false
		}
	}
	for _, p := range paths {
		o.record(p, o.prev[p], true)
	}
	return true
}

// put stores a rendered file: linked from the previous build when the
// content is the same, written otherwise. key is "" for files that have no
// input key.
func (o *output) put(rel, key string, data []byte) error {
	if !validSitePath(rel) {
		return fmt.Errorf("site: refusing path %q", rel)
	}
	if key == "" {
		key = "-"
	}
	e := entry{sum: sum(data), key: key}
	if pe, ok := o.prev[rel]; ok && pe.sum == e.sum && o.link(rel) == nil {
		o.record(rel, e, true)
		return nil
	}
	if err := o.write(rel, data); err != nil {
		return err
	}
	o.record(rel, e, false)
	return nil
}

func (o *output) record(rel string, e entry, linked bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.manifest[rel] = e
	o.stats.Pages++
	if linked {
		o.stats.Unchanged++
	} else {
		o.stats.Written++
	}
}

// result returns the counts so far.
func (o *output) result() Stats {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.stats
}

// link hard-links rel from the previous build, or copies it where the
// filesystem has no hard links.
func (o *output) link(rel string) error {
	src := filepath.Join(o.prevDir, filepath.FromSlash(rel))
	dst := filepath.Join(o.dir, filepath.FromSlash(rel))
	err := os.Link(src, dst)
	if err == nil || errors.Is(err, os.ErrNotExist) {
		return err
	}
	data, rerr := os.ReadFile(src)
	if rerr != nil {
		return rerr
	}
	return o.write(rel, data)
}

// write creates rel afresh. It never opens an existing file for writing: a
// leftover name may be a hard link into the published build. The build
// directory is new, so the name is almost never there: it is removed only
// when creating it fails for that reason (removing first cost two failed
// system calls a file, unlink and rmdir, a tenth of a full build's CPU).
func (o *output) write(rel string, data []byte) error {
	path := filepath.Join(o.dir, filepath.FromSlash(rel))
	create := func() (*os.File, error) {
		return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	}
	f, err := create()
	if errors.Is(err, os.ErrExist) {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("site: %w", err)
		}
		f, err = create()
	}
	if err != nil {
		return fmt.Errorf("site: %w", err)
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("site: writing %s: %w", rel, werr)
	}
	return nil
}

func (o *output) writeManifest() error {
	o.mu.Lock()
	paths := make([]string, 0, len(o.manifest))
	for p := range o.manifest {
		paths = append(paths, p)
	}
	o.mu.Unlock()
	slices.Sort(paths)
	var b bytes.Buffer
	for _, p := range paths {
		e := o.manifest[p]
		b.WriteString(e.sum + " " + e.key + " " + p + "\n")
	}
	return o.write(manifestName, b.Bytes())
}

// abort removes an unfinished build.
func (o *output) abort() {
	<-o.swept
	os.RemoveAll(o.dir)
}

// Publishing a build: which directory outDir may be, and the switch of
// outDir to a finished build (the scheme is described in output.go).

package site

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// publishedBuild is the build directory outDir points at, "" when outDir
// is not a symlink to one of our builds.
func publishedBuild(outDir string) string {
	outDir = filepath.Clean(outDir)
	if fi, err := os.Lstat(outDir); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		if target, err := os.Readlink(outDir); err == nil && isBuildName(target, outDir) {
			return filepath.Join(filepath.Dir(outDir), target)
		}
	}
	return ""
}

// checkOutDir refuses an outDir that publishing would destroy: a build
// replaces outDir, and the directory it replaces is deleted by the next
// build, so a --site-dir pointed at a home directory would lose it. Only a
// missing path, an empty directory, a symlink to one of our builds, or a
// plain directory holding a build manifest (a site copied or moved there)
// may be replaced.
func checkOutDir(outDir string) error {
	fi, err := os.Lstat(outDir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("site: %w", err)
	case fi.Mode()&os.ModeSymlink != 0:
		target, err := os.Readlink(outDir)
		if err != nil {
			return fmt.Errorf("site: %w", err)
		}
		if !isBuildName(target, outDir) {
			return fmt.Errorf("site: refusing to replace %s: it is a symlink to %q, not to one of this site's builds (choose a new or empty directory)", outDir, target)
		}
		return nil
	case !fi.IsDir():
		return fmt.Errorf("site: refusing to replace %s: it exists and is not a directory", outDir)
	}
	d, err := os.Open(outDir)
	if err != nil {
		return fmt.Errorf("site: %w", err)
	}
	defer d.Close()
	// A few names are enough to tell an empty directory and to quote one.
	names, err := d.Readdirnames(8)
	switch {
	case errors.Is(err, io.EOF):
		return nil // empty
	case err != nil:
		return fmt.Errorf("site: reading %s: %w", outDir, err)
	}
	if slices.Contains(names, manifestName) {
		return nil
	}
	if _, err := os.Stat(filepath.Join(outDir, manifestName)); err == nil {
		return nil
	}
	slices.Sort(names)
	return fmt.Errorf("site: refusing to replace %s: it is a non-empty directory that is not a vesper site build (it holds %q); its contents would be deleted (choose a new or empty directory)", outDir, names[0])
}

// isBuildName reports whether a symlink target names one of our build
// directories (a bare sibling name), so nothing else is ever read or deleted.
func isBuildName(target, outDir string) bool {
	return !strings.ContainsRune(target, filepath.Separator) && strings.HasPrefix(target, buildPrefix(outDir))
}

// publish points outDir at the new build with one rename, once the sweep
// of the builds before the one it replaces (and any left behind by an
// interrupted run) is done.
func (o *output) publish(outDir string) error {
	// The sweep must be over before anything below is made beside outDir:
	// the link made below has a build's name, and the sweep removes those.
	<-o.swept
	outDir = filepath.Clean(outDir)
	parent := filepath.Dir(outDir)
	if err := o.writeManifest(); err != nil {
		return err
	}
	fi, err := os.Lstat(outDir)
	switch {
	case err == nil && fi.Mode()&os.ModeSymlink == 0 && fi.IsDir():
		// An empty directory, or a site build copied there (checkOutDir
		// refused anything else): move it aside first (it is removed by
		// the next build). Readers miss the site for the instant between
		// the two renames, once.
		if err := checkOutDir(outDir); err != nil {
			return err
		}
		old, err := os.MkdirTemp(parent, buildPrefix(outDir))
		if err != nil {
			return fmt.Errorf("site: %w", err)
		}
		if err := os.Remove(old); err != nil {
			return fmt.Errorf("site: %w", err)
		}
		if err := os.Rename(outDir, old); err != nil {
			return fmt.Errorf("site: moving the old %s aside: %w", outDir, err)
		}
	case err == nil && fi.Mode()&os.ModeSymlink == 0:
		return fmt.Errorf("site: %s exists and is not a directory or a symlink", outDir)
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("site: %w", err)
	}
	tmp := filepath.Join(parent, buildPrefix(outDir)+"link")
	os.Remove(tmp)
	if err := os.Symlink(filepath.Base(o.dir), tmp); err != nil {
		return fmt.Errorf("site: %w", err)
	}
	if err := os.Rename(tmp, outDir); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("site: publishing: %w", err)
	}
	o.cleanup(outDir) // what the sweep left: a directory moved aside above
	return nil
}

// cleanup removes every build directory of outDir but o's and the one
// published before it: a reader that resolved outDir just before the swap
// may still be opening files there, so that build stays until the next one
// (its files are mostly hard links shared with the new build, so it costs
// little space). A new build sweeps while it renders (openOutput): the
// directories it removes were replaced one build ago or more.
func (o *output) cleanup(outDir string) {
	parent := filepath.Dir(outDir)
	d, err := os.Open(parent)
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	keep := map[string]bool{filepath.Base(o.dir): true}
	if o.prevDir != "" {
		keep[filepath.Base(o.prevDir)] = true
	}
	for _, name := range names {
		if !keep[name] && isBuildName(name, outDir) {
			os.RemoveAll(filepath.Join(parent, name))
		}
	}
}

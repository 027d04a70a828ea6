package sim

import (
	"html"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

var hrefRE = regexp.MustCompile(`href="([^"]*)"`)

// brokenLinks lists, as "page: href", every link of the site's pages in
// dir to a file of the site that does not exist: a season's arbiters and
// strangers are named on match pages, and a player page for them is not
// always built (issue 26, item 2). Links out of the site and fragments
// within a page are not followed.
func brokenLinks(dir string) ([]string, error) {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	var broken []string
	err = filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		for _, m := range hrefRE.FindAllSubmatch(b, -1) {
			href := html.UnescapeString(string(m[1]))
			if i := strings.IndexAny(href, "#?"); i >= 0 {
				href = href[:i]
			}
			if href == "" || strings.Contains(href, ":") {
				continue // a fragment of this page, or another site
			}
			target := path.Join(path.Dir(rel), href)
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(target))); err != nil {
				broken = append(broken, rel+": "+href)
			}
		}
		return nil
	})
	return broken, err
}

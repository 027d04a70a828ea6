package site

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// csp is the policy every page must carry: nothing but inline styles, the
// site's own style sheets (style.css, game.css: the CSS every page or every
// game page shares, sent once) and data: images (the empty favicon); no
// script source at all.
const csp = "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

var voidElements = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true,
}

// pageLint is one page's links and ids, checked across pages afterwards.
type pageLint struct {
	links []string // hrefs as written
	ids   map[string]bool
}

// lintSite checks every HTML page of a built site: the markup is balanced
// (every non-void element closed in order, self-closing only in SVG), the
// CSP meta tag is there, nothing can run or load (no script, no event
// handler attribute, no style attribute, no element that fetches), ids are
// unique, and every internal link and fragment resolves.
func lintSite(t *testing.T, root string) {
	t.Helper()
	for _, p := range lintDir(t, root) {
		t.Error(p)
	}
}

// lint collects problems.
type lint []string

func (l *lint) Errorf(format string, args ...any) { *l = append(*l, fmt.Sprintf(format, args...)) }

func lintDir(t *testing.T, root string) lint {
	t.Helper()
	// The published path is a symlink, which WalkDir would not enter.
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	var l lint
	pages := map[string]*pageLint{}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if strings.HasSuffix(p, ".css") {
			lintSheet(&l, filepath.ToSlash(rel), p)
			return nil
		}
		if !strings.HasSuffix(p, ".html") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		pages[filepath.ToSlash(rel)] = lintPage(&l, filepath.ToSlash(rel), data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) < 5 {
		t.Fatalf("only %d pages under %s", len(pages), root)
	}
	for rel, pl := range pages {
		for _, href := range pl.links {
			u, err := url.Parse(href)
			if err != nil {
				l.Errorf("%s: bad href %q", rel, href)
				continue
			}
			if u.Scheme == "https" || (u.Scheme == "data" && href == "data:,") {
				continue
			}
			if u.Scheme != "" || u.Host != "" {
				l.Errorf("%s: href %q leaves the site with a scheme other than https", rel, href)
				continue
			}
			target := rel
			if u.Path != "" {
				target = path.Join(path.Dir(rel), u.Path)
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(target))); err != nil {
					l.Errorf("%s: link %q: %s does not exist", rel, href, target)
					continue
				}
			}
			if u.Fragment != "" {
				if tp, ok := pages[target]; ok && !tp.ids[u.Fragment] {
					l.Errorf("%s: link %q: no id %q in %s", rel, href, u.Fragment, target)
				}
			}
		}
	}
	return l
}

// sheetLink is the href of a page's link to one of the site's own style
// sheets: a relative path up to the site root, nothing else.
var sheetLink = regexp.MustCompile(`^(\.\./)*(style|game)\.css$`)

// lintSheet checks that a style sheet the site serves loads nothing more
// (no url(), no @import: the CSP's 'self' would allow both).
func lintSheet(t *lint, rel, p string) {
	data, err := os.ReadFile(p)
	if err != nil {
		t.Errorf("%s: %v", rel, err)
		return
	}
	low := strings.ToLower(string(data))
	for _, bad := range []string{"url(", "@import", "expression(", "</style"} {
		if strings.Contains(low, bad) {
			t.Errorf("%s: style sheet contains %q", rel, bad)
		}
	}
}

func lintPage(t *lint, rel string, data []byte) *pageLint {
	pl := &pageLint{ids: map[string]bool{}}
	if !utf8.Valid(data) {
		t.Errorf("%s: not valid UTF-8", rel)
	}
	if !bytes.HasPrefix(data, []byte("<!DOCTYPE html>\n<html lang=\"en\">")) {
		t.Errorf("%s: does not start with the HTML5 doctype", rel)
	}
	z := html.NewTokenizer(bytes.NewReader(data))
	var stack []string
	svgDepth, cspSeen := 0, false
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if z.Err() != io.EOF {
				t.Errorf("%s: %v", rel, z.Err())
			}
			break
		}
		tok := z.Token()
		name := tok.Data
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			lintElement(t, rel, tok, pl, &cspSeen)
			selfClosing := tt == html.SelfClosingTagToken
			switch {
			case selfClosing && svgDepth == 0 && !voidElements[name]:
				t.Errorf("%s: self-closing <%s/> outside SVG", rel, name)
			case selfClosing, voidElements[name] && svgDepth == 0:
			default:
				stack = append(stack, name)
				if name == "svg" {
					svgDepth++
				}
			}
		case html.EndTagToken:
			if voidElements[name] && svgDepth == 0 {
				t.Errorf("%s: end tag for void element %s", rel, name)
				continue
			}
			if len(stack) == 0 || stack[len(stack)-1] != name {
				t.Errorf("%s: </%s> closes %v", rel, name, stack)
				return pl
			}
			stack = stack[:len(stack)-1]
			if name == "svg" {
				svgDepth--
			}
		}
	}
	if len(stack) != 0 {
		t.Errorf("%s: unclosed elements %v", rel, stack)
	}
	if !cspSeen {
		t.Errorf("%s: no Content-Security-Policy meta tag", rel)
	}
	return pl
}

// forbidden elements run code, embed other documents or fetch resources.
var forbidden = map[string]bool{
	"script": true, "iframe": true, "frame": true, "object": true, "embed": true, "img": true,
	"video": true, "audio": true, "source": true, "form": true, "base": true, "image": true,
	"foreignobject": true, "animate": true, "set": true, "noscript": true, "template": true,
}

func lintElement(t *lint, rel string, tok html.Token, pl *pageLint, cspSeen *bool) {
	name := tok.Data
	if forbidden[strings.ToLower(name)] {
		t.Errorf("%s: forbidden element <%s>", rel, name)
	}
	attrs := map[string]string{}
	for _, a := range tok.Attr {
		k := strings.ToLower(a.Key)
		if _, dup := attrs[k]; dup {
			t.Errorf("%s: <%s> repeats attribute %s", rel, name, k)
		}
		attrs[k] = a.Val
		switch {
		case strings.HasPrefix(k, "on"):
			t.Errorf("%s: event handler attribute %s on <%s>", rel, k, name)
		case k == "style", k == "src", k == "srcset", k == "action", k == "formaction", k == "xlink:href":
			t.Errorf("%s: attribute %s on <%s>", rel, k, name)
		case k == "id":
			if pl.ids[a.Val] {
				t.Errorf("%s: duplicate id %q", rel, a.Val)
			}
			pl.ids[a.Val] = true
		case k == "href" && name == "use":
			if !strings.HasPrefix(a.Val, "#") {
				t.Errorf("%s: <use> refers outside the page: %q", rel, a.Val)
			}
		case k == "href":
			v := strings.ToLower(strings.TrimSpace(a.Val))
			if strings.HasPrefix(v, "javascript:") || (strings.HasPrefix(v, "data:") && v != "data:,") {
				t.Errorf("%s: href %q", rel, a.Val)
			}
			pl.links = append(pl.links, a.Val)
		}
	}
	switch name {
	case "meta":
		if attrs["http-equiv"] == "Content-Security-Policy" {
			if attrs["content"] != csp {
				t.Errorf("%s: CSP is %q", rel, attrs["content"])
			}
			*cspSeen = true
		}
		if strings.EqualFold(attrs["http-equiv"], "refresh") {
			t.Errorf("%s: meta refresh", rel)
		}
	case "link":
		sheet := attrs["rel"] == "stylesheet" && sheetLink.MatchString(attrs["href"])
		if !sheet && (attrs["rel"] != "icon" || attrs["href"] != "data:,") {
			t.Errorf("%s: <link> other than the empty icon and the site's style sheets: %v", rel, attrs)
		}
	case "a":
		if strings.HasPrefix(attrs["href"], "https:") && !strings.Contains(attrs["rel"], "noopener") {
			t.Errorf("%s: external link without rel=noopener", rel)
		}
	}
}

func TestLint(t *testing.T) {
	f := newFixture(t)
	out, _ := buildFixture(t, f.in)
	lintSite(t, out)
}

// TestLintDetects makes sure the checker above is not vacuous.
func TestLintDetects(t *testing.T) {
	head := "<!DOCTYPE html>\n<html lang=\"en\"><head><meta http-equiv=\"Content-Security-Policy\" content=\"" + csp + "\"></head><body>"
	cases := []struct{ name, body string }{
		{"script", "<script>x()</script>"},
		{"handler", "<p onclick=\"x()\">a</p>"},
		{"javascript url", "<a href=\"javascript:x()\">a</a>"},
		{"unclosed", "<div><p>a</div>"},
		{"self-closing html", "<div/>"},
		{"remote image", "<img src=\"https://e.example/a.png\">"},
		{"style attribute", "<p style=\"color:red\">a</p>"},
		{"duplicate id", "<p id=\"a\">a</p><p id=\"a\">b</p>"},
		{"svg handler", "<svg onload=\"x()\"></svg>"},
		{"use outside", "<svg><use href=\"https://e.example/s.svg#a\"/></svg>"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var l lint
			lintPage(&l, "x.html", []byte(head+c.body+"</body></html>"))
			if len(l) == 0 {
				t.Errorf("no problem found in %q", c.body)
			}
		})
	}
	var l lint
	lintPage(&l, "ok.html", []byte(head+"<p>fine</p><svg><use href=\"#a\"/></svg></body></html>"))
	if len(l) != 0 {
		t.Errorf("problems in a good page: %v", l)
	}
}

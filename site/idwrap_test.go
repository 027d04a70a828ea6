package site

import (
	"net/http/httptest"
	"testing"

	"vesper/internal/browser"
	"vesper/internal/testkit"
)

// shortTokens finds, in the loaded page, every run of at most 20
// characters without a space (a short match id such as e61f9a95428b…, a
// short npub, a number, a word) with a word of it drawn over more than one
// line; a line may break at its punctuation (in JSON, after a hyphen). Such a token always fits a line of a 390 px screen, so a break
// in one is a style that lets it break (overflow-wrap:anywhere on its
// container), never a lack of room. Longer tokens (full ids, a player's
// 300-character comment) may wrap anywhere. SVG text is left out.
const shortTokens = `(() => {
  const broken = [];
  const shown = el => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let n; (n = walker.nextNode()); ) {
    const el = n.parentElement;
    if (!el || el.closest("svg") || !shown(el)) continue;
    const run = /\S+/g;
    for (let r; (r = run.exec(n.textContent)); ) {
      if (r[0].length > 20) continue; // long: may wrap anywhere
      const re = /[\p{L}\p{N}_…]+/gu; // a word, a number, an id (a line may break at punctuation)
      for (let m; (m = re.exec(r[0])); ) {
        // The line each character is on: a range over the whole word may
        // also report the space a wrapped line hangs.
        const tops = new Set();
        for (let i = 0; i < m[0].length; i++) {
          range.setStart(n, r.index + m.index + i);
          range.setEnd(n, r.index + m.index + i + 1);
          const rects = [...range.getClientRects()].filter(q => q.width > 0);
          if (rects.length) tops.add(Math.round(rects[rects.length - 1].top));
        }
        if (tops.size > 1) broken.push(JSON.stringify(r[0]) + " in <" + el.tagName.toLowerCase() + (el.className ? " class=" + el.className : "") + "> under #" + (el.closest("[id]") || document.body).id);
      }
    }
  }
  return broken;
})()`

// TestBrowserShortTokensWhole loads one page of every kind (everyKindSite,
// with its 40-character name and its game with hostile talk) at 390 and
// 1280 px: no short id, number or word is broken across lines (issue 37:
// a player page at 390 px broke a match id), while the hostile talk still
// wraps within the screen (TestHostileTalkFitsTheScreen).
func TestBrowserShortTokensWhole(t *testing.T) {
	testkit.QuickLoopSkips(t)
	bin := browser.Chromium(t)
	out, pages := everyKindSite(t)
	srv := httptest.NewServer(staticFiles(out))
	defer srv.Close()
	br := browser.Start(t, bin)
	for _, width := range []int{390, 1280} {
		for _, p := range pages {
			br.Open(t, srv.URL+"/"+p.rel, width)
			var broken []string
			br.Eval(t, shortTokens, &broken)
			for _, b := range broken {
				t.Errorf("%s (%d px): broken across lines: %s", p.name, width, b)
			}
		}
	}
}

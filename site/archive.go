package site

import (
	"cmp"
	"slices"
	"strconv"
)

// The archive makes every finished match reachable from index.html by
// links, not only from matches.json: per game kind, pages of archiveRows
// matches. Page 1 holds the oldest games and the last page the newest, so
// a newly finished game changes the last page only and the incremental
// build keeps the others; each page lists its games newest first, and the
// index links the newest page. Matches that are not listed (a player not
// declared a bot) have an archive of their own, linked from the note that
// counts them.
const archiveRows = 100

// archiveSet is one archive: a kind, listed or not, and its matches oldest
// first.
type archiveSet struct {
	kind     string
	unlisted bool
	cards    []*card
}

func (a archiveSet) name() string {
	if a.unlisted {
		return a.kind + "-unlisted"
	}
	return a.kind
}

func (a archiveSet) pages() int { return (len(a.cards) + archiveRows - 1) / archiveRows }

func (a archiveSet) href(page int) string {
	return "archive/" + a.name() + "-" + strconv.Itoa(page) + ".html"
}

// archives sorts the finished matches into their archives, computed once
// per build.
func (b *builder) archives() []archiveSet {
	b.archiveOnce.Do(func() {
		for _, kind := range kinds {
			for _, unlisted := range []bool{false, true} {
				a := archiveSet{kind: kind, unlisted: unlisted}
				for _, c := range b.cards {
					if c.Kind == kind && (c.Over || b.dormant(c)) && b.matchListed(c) != unlisted {
						a.cards = append(a.cards, c)
					}
				}
				slices.SortFunc(a.cards, func(x, y *card) int {
					return cmp.Or(cmp.Compare(b.endedAt(x), b.endedAt(y)), cmp.Compare(x.ID, y.ID))
				})
				b.archiveSets = append(b.archiveSets, a)
			}
		}
	})
	return b.archiveSets
}

func (b *builder) archiveLink(kind string) archiveLink {
	l := archiveLink{Game: gameName(kind)}
	for _, a := range b.archives() {
		if a.kind != kind || a.pages() == 0 {
			continue
		}
		if a.unlisted {
			l.UnlistedHref, l.UnlistedCount = a.href(a.pages()), len(a.cards)
		} else {
			l.Href, l.Count = a.href(a.pages()), len(a.cards)
		}
	}
	return l
}

type archivePage struct {
	Root, Title, Game string
	Unlisted          bool
	Page, Pages       int
	First, Last       int // the games' numbers on this page, counted from the oldest
	Total             int
	Rows              []finishedRow
	Newer, Older      string
	Nav               []pageLink
}

type pageLink struct {
	N       int
	Href    string
	Current bool
	Gap     bool // "…" before this link
}

// archivePages renders every page of every archive.
func (b *builder) archivePages(o *output) error {
	for _, a := range b.archives() {
		n := a.pages()
		for page := 1; page <= n; page++ {
			if err := b.put(o, a.href(page), "archive", b.archivePage(a, page)); err != nil {
				return err
			}
		}
	}
	return nil
}

func (b *builder) archivePage(a archiveSet, page int) *archivePage {
	n := a.pages()
	lo, hi := (page-1)*archiveRows, min(page*archiveRows, len(a.cards))
	v := &archivePage{Root: "../", Game: gameName(a.kind), Unlisted: a.unlisted, Page: page, Pages: n,
		First: lo + 1, Last: hi, Total: len(a.cards)}
	v.Title = v.Game + " archive, page " + strconv.Itoa(page)
	if a.unlisted {
		v.Title = v.Game + " archive of unlisted matches, page " + strconv.Itoa(page)
	}
	for i := hi - 1; i >= lo; i-- {
		v.Rows = append(v.Rows, b.archiveRow(a.cards[i]))
	}
	rel := func(p int) string { return a.name() + "-" + strconv.Itoa(p) + ".html" }
	if page < n {
		v.Newer = rel(page + 1)
	}
	if page > 1 {
		v.Older = rel(page - 1)
	}
	// Newest first, like the rows: the last page, a window around this
	// one, and the first, so a thousand pages do not put a thousand links
	// on each.
	prev := 0
	for p := n; p >= 1; p-- {
		if p != n && p != 1 && (p < page-3 || p > page+3) {
			continue
		}
		v.Nav = append(v.Nav, pageLink{N: p, Href: rel(p), Current: p == page, Gap: prev != 0 && prev != p+1})
		prev = p
	}
	return v
}

// endedAt places a game in the archive: the date its row shows
// (playedUntil), or for an abandoned game (dormant) when its clock ran
// out.
func (b *builder) endedAt(c *card) int64 {
	if c.Over {
		return playedUntil(c.Reason, c.EndedAt, c.clock())
	}
	return c.clock().Deadline()
}

// archiveRow is a finished game's row, or an abandoned game's: no result,
// the date its clock ran out, and why it is here.
func (b *builder) archiveRow(c *card) finishedRow {
	if c.Over {
		return b.finishedRow(c)
	}
	return finishedRow{ID: c.ID, Game: gameName(c.Kind), First: b.player(c.First), Second: b.player(c.Second),
		ResultCode: "–", ReasonText: "abandoned: the clock ran out on " + date(c.clock().Deadline()) + " and no one claimed it",
		EndedAt: c.clock().Deadline(), Plies: c.Plies, Abandoned: true}
}

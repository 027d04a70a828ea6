package site

import (
	"cmp"
	"slices"

	"vesper/match"
	"vesper/nostr"
)

// Head-to-head series (h/<a>-<b>.html, a < b): every game between two
// players, linked from each of their match pages.

type h2hPage struct {
	Root, Title string
	A, B        player
	Series      []h2hGame
	// Final counts the final games, scored for A.
	record
	Unfinished int
}

type h2hGame struct {
	ID, Game, SideA, Outcome string
	At                       int64
	Final                    bool
}

// h2hPath is the series page of two players, "" when either key is not
// one a path may hold.
func h2hPath(x, y string) string {
	if !nostr.IsLowerHex(x, 64) || !nostr.IsLowerHex(y, 64) || x == y {
		return ""
	}
	if y < x {
		x, y = y, x
	}
	return "h/" + x + "-" + y + ".html"
}

// h2hPairs are the pairs of players with an accepted game, each as its
// sorted keys, with their games newest first (the cards' order).
func (b *builder) h2hPairs() map[[2]string][]*card {
	pairs := map[[2]string][]*card{}
	for _, c := range b.cards {
		if !c.Accepted || h2hPath(c.First, c.Second) == "" {
			continue
		}
		k := [2]string{c.First, c.Second}
		if k[1] < k[0] {
			k[0], k[1] = k[1], k[0]
		}
		pairs[k] = append(pairs[k], c)
	}
	return pairs
}

func (b *builder) h2hPage(pair [2]string, cards []*card) *h2hPage {
	v := &h2hPage{Root: "../", A: b.player(pair[0]), B: b.player(pair[1])}
	v.Title = fitTitle("%s vs %s", v.A.Label(), v.B.Label())
	for _, c := range cards {
		role := c.role(pair[0])
		first, second := sides(c.Kind)
		g := h2hGame{ID: c.ID, Game: gameName(c.Kind), SideA: first, At: c.CreatedAt, Final: c.Final,
			Outcome: outcome(c, role)}
		if role == match.Second {
			g.SideA = second
		}
		if c.Final {
			v.add(c, role)
		} else {
			v.Unfinished++
		}
		v.Series = append(v.Series, g)
	}
	v.finish()
	return v
}

// talkPages writes the ladder of models and the head-to-head series.
func (b *builder) talkPages(o *output) error {
	lp := b.ladderPage()
	if err := b.put(o, "models.html", "models", lp); err != nil {
		return err
	}
	if err := o.put("models.json", "", b.modelsJSON(lp)); err != nil {
		return err
	}
	pairs := b.h2hPairs()
	keys := make([][2]string, 0, len(pairs))
	for k := range pairs {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y [2]string) int { return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1])) })
	// A pair's page reads only what the build shares read-only (players
	// under b.mu): they render in parallel, a site of 10,000 matches
	// having thousands of them (issue 37).
	return parallel(len(keys), func(i int) error {
		k := keys[i]
		return b.put(o, h2hPath(k[0], k[1]), "h2h", b.h2hPage(k, pairs[k]))
	})
}

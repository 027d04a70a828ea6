// A match's own files: its page, match.json and (chess) PGN, rendered again
// or carried over by hard link.

package site

import (
	"fmt"

	"vesper/analysis"
	"vesper/nostr"
)

// allMatchFiles renders the match files on one goroutine per CPU (the
// templates and the chess replay are CPU work). The order of the writes
// does not matter: the manifest is sorted.
func (b *builder) allMatchFiles(o *output) error {
	return parallel(len(b.cards), func(i int) error { return b.matchFiles(o, b.cards[i]) })
}

// matchFiles writes a match's page, match.json and (chess) PGN, or carries
// them over untouched when nothing they are made from has changed.
func (b *builder) matchFiles(o *output, c *card) error {
	// The card's analysis digest is part of the key: an analysis still to
	// load is loaded first, and kept for the page.
	var g *analysis.Game
	if c.gradeLater {
		var err error
		if g, err = b.loadAnalysis(c.ID); err != nil {
			return err
		}
		setGrades(c, g)
		c.gradeLater = false
	}
	paths := matchPaths(c)
	key := b.matchKey(c)
	if o.reuse(key, paths...) {
		return nil
	}
	f, err := b.fullState(c.ID)
	if err != nil {
		return err
	}
	if g, err = b.shownAnalysis(c, g); err != nil {
		return err
	}
	return b.writeMatchFiles(o, c, key, f, g)
}

// matchPaths are the files of a match, its page first and match.json
// second; which there are is the card's to say.
func matchPaths(c *card) []string {
	base := "m/" + c.ID
	paths := []string{base + ".html", base + ".json"}
	if c.Kind == nostr.GameChess {
		paths = append(paths, base+".pgn")
	}
	if cardClass(c) == "done" {
		paths = append(paths, analysisPath(c.ID))
	}
	if c.Reasoning {
		paths = append(paths, reasoningPath(c.ID))
	}
	return paths
}

// shownAnalysis is the analysis the match's files show, nil for none: g,
// or the one loaded now. The card decided which files there are; an
// analysis that no longer fits it (a caller that did not report a change)
// is left out rather than shown beside a card that disagrees.
func (b *builder) shownAnalysis(c *card, g *analysis.Game) (*analysis.Game, error) {
	if cardClass(c) != "done" {
		return nil, nil
	}
	if g == nil {
		var err error
		if g, err = b.analysisOf(c.ID); err != nil {
			return nil, err
		}
	}
	if gradeClass(c, g) != "done" {
		return nil, nil
	}
	return g, nil
}

// writeMatchFiles renders the match's files from its full state f and the
// analysis g, and writes them under key.
func (b *builder) writeMatchFiles(o *output, c *card, key string, f full, g *analysis.Game) error {
	base := "m/" + c.ID
	v := b.matchView(f.s, f.seen, g)
	html, err := b.tpl.render("match", v)
	if err != nil {
		return fmt.Errorf("site: %s: %w", base+".html", err)
	}
	if err := o.put(base+".html", key, html); err != nil {
		return err
	}
	if err := o.put(base+".json", key, matchJSON(f.s, f.seen, b.in.Now)); err != nil {
		return err
	}
	if c.Kind == nostr.GameChess {
		if err := o.put(base+".pgn", key, []byte(v.PGN)); err != nil {
			return err
		}
	}
	if c.Reasoning {
		if err := o.put(reasoningPath(c.ID), key, reasoningJSON(f.s, v.rep, v.Replay.Moves)); err != nil {
			return err
		}
	}
	if g != nil {
		return o.put(analysisPath(c.ID), key, analysisJSON(g))
	}
	return nil
}

// fullState returns a match's state to render its files from: the build's
// own, or (Update) one folded again by the loader.
func (b *builder) fullState(id string) (full, error) {
	b.mu.Lock()
	f, ok := b.states[id]
	b.mu.Unlock()
	if ok {
		return f, nil
	}
	if b.load == nil {
		return full{}, fmt.Errorf("site: match %s: no state to render", id)
	}
	s, seen, err := b.load(id)
	if err != nil {
		return full{}, fmt.Errorf("site: match %s: %w", id, err)
	}
	if !folded(s) || s.Match != id {
		return full{}, fmt.Errorf("site: match %s: the loader returned no state of it", id)
	}
	// When the store has moved on since the match was taken as unchanged,
	// the page shows the newer state: the caller has marked the match, so
	// the next build renders its listings too.
	return full{s: s, seen: seen}, nil
}

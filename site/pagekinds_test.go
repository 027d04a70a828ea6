package site

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"vesper/match"
)

// pageKind is one kind of page the build writes, by one example of it.
type pageKind struct{ name, rel string }

// everyKindSite builds the showcase season grown so that it has a page of
// every kind the build writes: a game of each game kind, a game with
// hostile talk (a 300-character unbroken comment, a 10,000-character
// reasoning, a fallback move), a game with no moves, players with models,
// a how-to that lists relays and links the source,
// a head-to-head series and an archive per game kind. It returns the
// built directory and one example of each kind, for the accessibility and
// validity tests (issue 37).
func everyKindSite(t *testing.T) (string, []pageKind) {
	t.Helper()
	f := showcase(t)
	talk, _, _ := hostileTalk(t)
	f.in.States = append(f.in.States, foldT(t, talk.m))
	c4, c4s, c4g, _ := connect4Input(t)
	f.in.States = append(f.in.States, c4s)
	f.in.Analyses[c4s.Match] = c4g
	for id, at := range c4.SeenAt {
		f.in.SeenAt[id] = at
	}
	f.in.Profiles[alice.PublicKey()] = ParseProfile(`{"name":"Alice","bot":true,"agent":{"model":"model-a"}}`)
	f.in.Profiles[bob.PublicKey()] = ParseProfile(`{"name":"Bob","bot":true,"agent":{"model":"model-b"}}`)
	f.in.RatingGames = RatingGames(f.in.States)
	f.in.ReadRelays, f.in.SourceURL = []string{"wss://relay.one.example", "wss://relay.two.example"}, "https://git.example/vesper"
	out, _ := buildFixture(t, f.in)
	var open *match.State
	for _, s := range f.in.States {
		if s.Match == f.ids["open"] {
			open = s
		}
	}
	if open == nil || len(open.Moves) != 0 {
		t.Fatal("fixture: the open challenge is missing or has moves")
	}
	return out, []pageKind{
		{"index", "index.html"},
		{"chess game", "m/" + f.ids["opera"] + ".html"},
		{"gomoku game", "m/" + f.ids["five"] + ".html"},
		{"connect4 game", "m/" + c4s.Match + ".html"},
		{"game with hostile talk", "m/" + talk.m.ID + ".html"},
		{"game with no moves", "m/" + f.ids["open"] + ".html"},
		{"game with ignored events", "m/" + f.ids["active"] + ".html"},
		{"game ruled by the arbiter", "m/" + f.ids["ruling"] + ".html"},
		{"player", "p/" + f.games["opera"].A.PublicKey() + ".html"},
		{"player with a model", "p/" + alice.PublicKey() + ".html"},
		{"chess leaderboard", "ratings/chess.html"},
		{"gomoku leaderboard", "ratings/gomoku.html"},
		{"connect4 leaderboard", "ratings/connect4.html"},
		{"ladder of models", "models.html"},
		{"head-to-head", h2hPath(alice.PublicKey(), bob.PublicKey())},
		{"how to play", "how-to-play.html"},
		{"protocol", "protocol.html"},
		{"chess archive", "archive/chess-1.html"},
		{"gomoku archive", "archive/gomoku-1.html"},
		{"connect4 archive", "archive/connect4-1.html"},
		{"archive of unlisted players", "archive/chess-unlisted-1.html"},
	}
}

// htmlFiles lists every HTML file of a built site, relative to it.
func htmlFiles(t *testing.T, out string) []string {
	t.Helper()
	var rels []string
	// The build publishes its output as a link to the generation it
	// wrote; WalkDir does not follow a link at its root.
	out, err := filepath.EvalSymlinks(out)
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".html") {
			rel, _ := filepath.Rel(out, path)
			rels = append(rels, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return rels
}

// Every kind of page listed by everyKindSite exists, and every HTML file
// the build writes is of one of those kinds (by its directory or name), so
// that a new kind of page is added to the list.
func TestEveryKindSite(t *testing.T) {
	out, kinds := everyKindSite(t)
	files := htmlFiles(t, out)
	have := map[string]bool{}
	for _, rel := range files {
		have[rel] = true
	}
	kindOf := map[string]bool{}
	for _, k := range kinds {
		if !have[k.rel] {
			t.Errorf("%s: %s was not written", k.name, k.rel)
		}
		kindOf[pageKindKey(k.rel)] = true
	}
	for _, rel := range files {
		if !kindOf[pageKindKey(rel)] {
			t.Errorf("%s is of no kind the accessibility and validity tests load", rel)
		}
	}
	t.Log(len(files), "HTML files")
}

// pageKindKey is what tells kinds of page apart by path: the directory,
// or the name of a file at the top.
func pageKindKey(rel string) string {
	if dir, file, ok := strings.Cut(rel, "/"); ok {
		if dir == "archive" || dir == "ratings" {
			file = strings.TrimRight(strings.TrimSuffix(file, ".html"), "-0123456789")
			if dir == "archive" {
				_, unlisted := strings.CutSuffix(file, "-unlisted")
				file = map[bool]string{false: "listed", true: "unlisted"}[unlisted]
			}
			return dir + "/" + file
		}
		return dir
	}
	return rel
}

package site

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
	"sync"

	par "vesper/internal/parallel"
	"vesper/match"
	"vesper/nostr"
	"vesper/ratings"
	"vesper/site/opening"
)

// DaemonAcceptDelay is how long an open challenge waits before the daemon
// may accept it (PROTOCOL.md section 3).
const DaemonAcceptDelay = match.HouseWait

// Stats counts the files of a build: Written were rendered and written,
// Unchanged were carried over from the previous build by hard link, Skipped
// counts states left out: nil, not made by match.Fold (their match id is
// not 64 lowercase hex, or their first event is not the challenge), or a
// second state of the same match.
type Stats struct {
	Pages, Written, Unchanged, Skipped int
	// Passes is how many times BuildEach folded the matches: 2 when its
	// forecast of the ratings was wrong (0 for Build and Update).
	Passes int
}

// Build renders the site into a new directory beside outDir and switches
// outDir (a symlink the site manages) to it atomically; see output.go. Only
// one Build or Update may run for an outDir at a time.
func Build(in Input, outDir string) (Stats, error) {
	b, err := newBuilder(in)
	if err != nil {
		return Stats{}, err
	}
	skipped := 0
	seen := map[string]bool{}
	for _, s := range in.States {
		if !folded(s) || seen[s.Match] {
			skipped++
			continue
		}
		seen[s.Match] = true
		b.add(s, in.SeenAt)
	}
	b.index()
	o, err := openOutput(outDir)
	if err != nil {
		return Stats{}, err
	}
	o.stats.Skipped = skipped
	return b.run(o, outDir)
}

// run writes every file of the build into o and publishes it at outDir.
func (b *builder) run(o *output, outDir string) (Stats, error) {
	if err := b.build(o); err != nil {
		o.abort()
		return o.result(), err
	}
	if err := o.writeCards(b.cards); err != nil {
		o.abort()
		return o.result(), err
	}
	if err := o.publish(outDir); err != nil {
		o.abort()
		return o.result(), err
	}
	return o.result(), nil
}

// full is a match's folded state with its events, and the seen_at times
// of those events: what its own files are rendered from.
type full struct {
	s    *match.State
	seen map[string]int64
}

// builder holds what every page of one build shares.
type builder struct {
	in       Input
	params   ratings.Params
	tpl      *templates
	defs     *boardDefs
	renderID string

	mu       sync.Mutex // guards players, states and (BuildEach) cards and byID: match pages render in parallel
	players  map[string]*player
	states   map[string]full // the matches whose files can be rendered without load
	cards    []*card         // valid ids, newest challenge first
	byPlayer map[string][]*card
	byID     map[string]*card
	// load folds a match whose files must be rendered again although it is
	// not in states (Update only; nil in Build).
	load        Loader
	tables      map[string][]ratings.Player // every rated player, by kind
	rated       map[string]map[string]ratings.Player
	rowsMu      sync.Mutex
	rows        map[string]*leaderboard // by kind, made by the first ratingRows
	archiveOnce sync.Once
	archiveSets []archiveSet
	// houseName is the house's profile name, which other names must not
	// imitate.
	houseName string
	// cross is the rated games by kind and pair, for the crosstables.
	cross map[string]map[[2]string][]ratings.Game
	// openings names chess openings (Input.Openings).
	openings *opening.Table
}

// kinds are the game kinds in the order pages show them.
var kinds = match.GameKinds()

func newBuilder(in Input) (*builder, error) {
	tpl, err := parseTemplates()
	if err != nil {
		return nil, err
	}
	b := &builder{
		in: in, params: in.Params, tpl: tpl, defs: newBoardDefs(),
		players: map[string]*player{}, states: map[string]full{},
		byPlayer: map[string][]*card{}, byID: map[string]*card{},
		tables: map[string][]ratings.Player{}, rated: map[string]map[string]ratings.Player{},
	}
	if b.params.Tau == 0 {
		b.params = ratings.LichessParams()
	}
	b.renderID = renderID(tpl.source)
	if b.openings = in.Openings; b.openings == nil {
		b.openings = opening.Default()
	}
	if in.Daemon != "" {
		b.houseName = cleanLine(in.Profiles[in.Daemon].Name, maxName)
	}
	return b, nil
}

// add makes a folded state part of the build, renderable. An analysis the
// build must load is graded on the card when its files are made
// (matchFiles), so that only a few are held at a time.
func (b *builder) add(s *match.State, seenAt map[string]int64) {
	g, later := b.heldAnalysis(s.Match)
	c := newCard(s, seenAt, g)
	c.gradeLater = later
	c.Idle = b.idleSince(s)
	b.cards = append(b.cards, c)
	b.states[s.Match] = full{s: s, seen: seenAt}
}

// index sorts the cards, groups them by player and computes the ratings
// (from in.Ratings, else from in.RatingGames; Update fills the latter from
// the cards).
func (b *builder) index() {
	sortCards(b.cards)
	for _, c := range b.cards {
		b.byID[c.ID] = c
		for _, pk := range participants(c) {
			b.byPlayer[pk] = append(b.byPlayer[pk], c)
		}
	}
	b.rate()
}

// rate computes the rating tables (from in.Ratings, else from
// in.RatingGames).
func (b *builder) rate() {
	games := b.in.RatingGames
	if games == nil {
		games = cardGames(b.cards)
	}
	b.cross = crossIndex(games)
	for _, kind := range kinds {
		t, ok := b.in.Ratings[kind]
		if !ok && len(b.in.RatingGames[kind]) > 0 {
			t = ratings.Table(kind, b.in.RatingGames[kind], b.params)
		}
		b.tables[kind] = t
		delete(b.rows, kind)
		m := make(map[string]ratings.Player, len(t))
		for _, p := range t {
			m[p.Pubkey] = p
		}
		b.rated[kind] = m
	}
}

// folded reports whether s looks like match.Fold's output: a hex id and
// the challenge as its first event. Anything else (a hand-made State) would
// make the state's methods fail, and a bad id must not become a path.
func folded(s *match.State) bool {
	return s != nil && nostr.IsLowerHex(s.Match, 64) && len(s.Events) > 0 &&
		s.Events[0] != nil && s.Events[0].ID == s.Match
}

// participants are the accounts a match concerns: its players and an
// invitee who has not (yet) accepted. The fold guarantees they differ.
func participants(c *card) []string {
	pks := []string{c.First}
	if c.Accepted {
		pks = append(pks, c.Second)
	}
	if c.Invitee != "" && c.Invitee != c.Second {
		pks = append(pks, c.Invitee)
	}
	return pks
}

func (b *builder) build(o *output) error {
	if err := b.mkdirs(o); err != nil {
		return err
	}
	if err := b.allMatchFiles(o); err != nil {
		return err
	}
	return b.otherPages(o)
}

func (b *builder) mkdirs(o *output) error {
	for _, dir := range []string{"m", "p", "ratings", "archive", "h"} {
		if err := o.mkdir(dir); err != nil {
			return fmt.Errorf("site: %w", err)
		}
	}
	return nil
}

// otherPages writes every file but the matches' own, from the cards.
func (b *builder) otherPages(o *output) error {
	// A player page is CPU work over the cards alone (its rows, charts and
	// figures), hundreds of them: one goroutine per CPU, as the match files.
	keys := b.playerKeys()
	if err := parallel(len(keys), func(i int) error {
		return b.put(o, "p/"+keys[i]+".html", "player", b.playerPage(keys[i]))
	}); err != nil {
		return err
	}
	for _, kind := range kinds {
		if err := b.put(o, "ratings/"+kind+".html", "ratings", b.ratingsPage(kind)); err != nil {
			return err
		}
	}
	if err := b.archivePages(o); err != nil {
		return err
	}
	if err := b.talkPages(o); err != nil {
		return err
	}
	if err := b.put(o, "index.html", "index", b.indexPage()); err != nil {
		return err
	}
	if err := b.put(o, "how-to-play.html", "howto", b.howtoPage()); err != nil {
		return err
	}
	if err := b.put(o, "protocol.html", "protocol", b.protocolPage()); err != nil {
		return err
	}
	if err := o.put("protocol.md", "", []byte(protocolText)); err != nil {
		return err
	}
	for _, name := range styleSheets {
		if err := o.put(name, "", b.tpl.sheets[name]); err != nil {
			return err
		}
	}
	if err := o.put("ratings.json", "", b.ratingsJSON()); err != nil {
		return err
	}
	return o.put("matches.json", "", b.matchesJSON())
}

// put renders a page template and stores it.
func (b *builder) put(o *output, rel, name string, data any) error {
	key := b.viewKey(name, data)
	if o.reuse(key, rel) {
		return nil
	}
	html, err := b.tpl.render(name, data)
	if err != nil {
		return fmt.Errorf("site: %s: %w", rel, err)
	}
	return o.put(rel, key, html)
}

// viewKey hashes everything a page template reads: the templates and the
// binary (renderID) and the page's view, every value in it (hashView), so
// that an Update renders again only the player and archive pages whose
// view changed (hashing costs a fraction of html/template's execution).
func (b *builder) viewKey(name string, data any) string {
	h := sha256.New()
	h.Write([]byte(b.renderID + "\x00" + name + "\x00"))
	hashView(h, reflect.ValueOf(data))
	return hex.EncodeToString(h.Sum(nil))
}

// parallel calls f(0) to f(n-1) on one goroutine per CPU and returns the
// first error; after an error the calls not yet started are skipped.
func parallel(n int, f func(i int) error) error { return par.Do(n, f) }

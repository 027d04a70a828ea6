package site

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html/template"
	"reflect"
	"slices"
	"strings"
	"sync"

	"vesper/analysis"
	par "vesper/internal/parallel"
	"vesper/match"
	"vesper/nostr"
	"vesper/ratings"
	"vesper/site/opening"
)

// DaemonAcceptDelay is how long an open challenge waits before the daemon
// may accept it (PROTOCOL.md section 3).
const DaemonAcceptDelay = match.HouseWait

// Input is everything a build shows. The site reads no store and no clock:
// the caller passes the folded states, the times it first saw each event,
// the profiles and now.
type Input struct {
	States []*match.State
	// SeenAt maps event ids to the unix time this verifier first received
	// them; match.json carries the entries of each match's events.
	SeenAt map[string]int64
	// Profiles are parsed kind-0 contents (ParseProfile) by hex pubkey.
	Profiles map[string]Profile
	// Daemon is the daemon's hex pubkey, "" when it runs without a key. Its
	// games are labelled as its games on every page.
	Daemon string
	Now    int64
	// ListAll lists every account on the index, the ratings pages and the
	// feeds; by default only NIP-24 bots (and the daemon) are listed.
	ListAll bool
	// Ratings are the tables by game kind ("chess", "gomoku"). A kind
	// without a table is rated here from RatingGames.
	Ratings     map[string][]ratings.Player
	RatingGames map[string][]ratings.Game
	// Params are the rating constants, used to grow each RD to Now; the
	// zero value means ratings.LichessParams().
	Params ratings.Params
	// Analyses are the finished games' move grades by match id. When
	// AnalysisStatus is nil they must be every analysis the caller holds,
	// for Update as for Build (a match whose files are rendered again shows
	// its entry, and Update compares each carried-over card with it); with
	// AnalysisStatus they may be any part of those, or none, and an id
	// missing from AnalysisStatus has no analysis whatever Analyses holds.
	// An entry with StatusDone is shown, on its match page (evaluation
	// graph, a tag per move, the per-player summary) and its players'
	// pages, and published as m/<id>.analysis.json, only when it fits the
	// game: Format is analysis.FormatVersion, Match and Game are the
	// match's, the game is over, Moves has one entry per counted ply with
	// Ply 1, 2, ... and known tags, Players are the first then the second
	// player by pubkey, each one's Counts add up to its Moves and both Moves
	// to the plies, and every percentage is within 0-100. A StatusFailed
	// entry, or a done one that does not fit, shows no grade: the page says
	// the analysis failed. An entry with any other status counts as none
	// yet. The entries are read, never modified.
	Analyses map[string]*analysis.Game
	// AnalysisStatus, when not nil, is the status of every analysis the
	// caller holds, by match id (a missing id: no analysis), so that
	// Analyses need not hold them all: a daemon with 100,000 analysed games
	// passes this map, one short string per game, and the store's reader as
	// LoadAnalysis. Update then compares each carried-over card with its
	// match's status alone, loading nothing: a card made from a done
	// analysis (shown, or shown as failed because it did not fit) whose
	// status is still done is kept as it is, and one whose status moved
	// between none (missing, or a status this package does not know),
	// failed and done is rendered again, its analysis loaded. (An analysis
	// replaced by another done one, a new engine version, is rendered again
	// only when its match is in Update's changed, as without
	// AnalysisStatus.) The files are byte for byte those of the same build
	// with every analysis in Analyses.
	AnalysisStatus map[string]analysis.Status
	// LoadAnalysis reads one match's analysis, when AnalysisStatus says it
	// is done and Analyses does not hold it; it is needed only then. A
	// build calls it at most once per match, and only for a match whose
	// state it has (Build: every match; Update: the changed ones and those
	// whose files must be rendered again, never a match carried over from
	// the previous build's cards), possibly from several goroutines at
	// once. It keeps the result only while that match's files are made, so
	// a build holds a few analyses at a time. An error fails the build; a
	// nil analysis with no error counts as none (it went since
	// AnalysisStatus was read). What it returns is shown as an entry of
	// Analyses would be: by its own status and content, which need not be
	// AnalysisStatus's.
	LoadAnalysis func(id string) (*analysis.Game, error)
	// Analysing says that the caller analyses finished games: a final game
	// with counted moves and no analysis (no entry in Analyses, or none in
	// AnalysisStatus) then reads "being analysed" on its page. False: such
	// a game shows no analysis at all.
	Analysing bool
	// Relays are the URLs of the relays that delivered each event, by
	// event id, as the store records them. Only a match's challenge id is
	// read (other ids are ignored): its match page shows the challenge as
	// an nevent (NIP-19) with the challenger as author and at most three
	// of these as relay hints, chosen and spelled the same way in every
	// build: the valid ws:// and wss:// URLs (nostr.NormalizeRelayURL),
	// each once and at most 255 bytes (NIP-19's length byte), public ones
	// before those naming this machine or a private network
	// (nostr.IsLocalRelay), each group sorted. A match without an entry
	// gets an nevent without hints. The hints are part of the match's
	// key, so like Profiles this must hold every match's entry for Update
	// as for Build: a match whose hints changed is rendered again.
	Relays map[string][]string
	// IdleSince and DormantAfter show the daemon's dormant games (issue
	// 28): IdleSince says since when a match has been idle (0: it never
	// goes dormant), and a game idle since more than DormantAfter seconds
	// before Now, not the Daemon's own, is shown as abandoned: in the
	// archive, not among the live games. The daemon decides both (it keeps
	// such a game out of memory, which is a policy, not a rule of the
	// fold); nil or 0 shows no game as abandoned.
	IdleSince    func(*match.State) int64
	DormantAfter int64
	// HouseOpen is the Daemon's own verdict, at Now, on each challenge it
	// could accept, by match id: what its arbiter decides with its cap on
	// games at once, one game per opponent and --no-play, so that no page
	// promises an accept the house will not make (issue 26, item 8). nil
	// (a build from the store alone, with no daemon deciding): the index
	// says only when section 3 lets the house accept.
	HouseOpen map[string]HouseVerdict
	// HouseStrength says how strong the house's built-in engine plays, as
	// the daemon configures it ("2s of search per move"); its games' pages
	// say so. "": the pages say only that it plays with its engine.
	HouseStrength string
	// Openings names chess openings on game pages and in PGNs; nil is the
	// table shipped with vesper (opening.Default).
	Openings *opening.Table
	// ReadRelays are the relays this site's daemon reads (its --relays),
	// listed on the how-to page so that a player knows where to publish.
	// nil: the page says the build was not told which.
	ReadRelays []string
	// SourceURL is where vesper's source is published (the operator's
	// --source-url), linked from the how-to. "" (the default: the module
	// names no repository): the page says the operator has not said.
	SourceURL string
}

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

// playerKeys are every valid pubkey that gets a page: players, invitees,
// rated players and the daemon (the index names it), sorted.
func (b *builder) playerKeys() []string {
	var keys []string
	if nostr.IsLowerHex(b.in.Daemon, 64) {
		keys = append(keys, b.in.Daemon)
	}
	for pk := range b.byPlayer {
		if nostr.IsLowerHex(pk, 64) {
			keys = append(keys, pk)
		}
	}
	for _, kind := range kinds {
		for _, p := range b.tables[kind] {
			if _, ok := b.byPlayer[p.Pubkey]; !ok && nostr.IsLowerHex(p.Pubkey, 64) {
				keys = append(keys, p.Pubkey)
			}
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// listed reports whether an account appears in listings.
func (b *builder) listed(pk string) bool {
	return b.in.ListAll || (pk != "" && pk == b.in.Daemon) || b.in.Profiles[pk].Bot
}

// matchListed reports whether a match appears on the index and in
// matches.json: all its players are listed.
func (b *builder) matchListed(c *card) bool {
	return b.listed(c.First) && (!c.Accepted || b.listed(c.Second))
}

// player returns the view of a pubkey, cached for the build.
func (b *builder) player(pk string) player {
	if pk == "" {
		return player{}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if p, ok := b.players[pk]; ok {
		return *p
	}
	p := &player{Pubkey: pk, Daemon: pk != "" && pk == b.in.Daemon}
	if nostr.IsLowerHex(pk, 64) {
		prof := b.in.Profiles[pk]
		p.Npub = nostr.Npub(pk)
		p.Short = shortNpub(p.Npub)
		p.Href = "p/" + pk + ".html"
		p.Name = cleanLine(prof.Name, maxName)
		p.Bot = prof.Bot
		p.Says = prof.Says()
		p.Warn = nameWarning(p.Name, p.Daemon, b.houseName)
	} else {
		p.Short = "invalid key"
	}
	p.top, p.sub = p.render(""), p.render("../")
	b.players[pk] = p
	return *p
}

// shortNpub keeps the start and the end of an npub: "npub1abcdef…uvwxyz".
func shortNpub(npub string) string {
	if len(npub) < 20 {
		return npub
	}
	return npub[:11] + "…" + npub[len(npub)-6:]
}

// player is how a page shows an account.
type player struct {
	Pubkey, Npub, Short, Name string
	Daemon, Bot               bool
	Href                      string // from the site root; "" for an invalid key
	// Warn flags a name that imitates a key or the house (nameWarning).
	Warn string
	// Says is the self-reported identity (Profile.Says), shown as such.
	Says string

	top, sub template.HTML // Who for pages at the root and one level down
}

// Who is the account as a link to its page, with the short npub beside the
// name and the house's mark. Pages show hundreds of these, so it is
// rendered once per account and build.
func (p player) Who(root string) template.HTML {
	switch {
	case p.Pubkey == "":
		return `<span class="mute">nobody yet</span>`
	case root == "" && p.top != "":
		return p.top
	case root == "../" && p.sub != "":
		return p.sub
	}
	return p.render(root)
}

// whoTpl is the markup of Who. A name is only ever the link text; the key
// beside it is monospace and outside the link, and the house's mark is a
// fixed string, so a name can imitate neither (issue 17: a profile named
// "vesper house", or named like the house's short npub, read exactly like
// the house). It is rendered once per player and page depth through
// html/template like every other page part, so the name is escaped in its
// context.
var whoTpl = template.Must(template.New("who").Parse(
	`<span class="who">` +
		`{{if .Href}}<a href="{{.Root}}{{.Href}}" title="{{.Npub}}">{{end}}` +
		`{{if .Name}}<bdi class="nm">{{.Name}}</bdi>{{else}}<code class="npub">{{.Short}}</code>{{end}}` +
		`{{if .Href}}</a>{{end}}` +
		`{{if .Name}} <code class="npub">{{.Short}}</code>{{end}}` +
		`{{if .Daemon}} <span class="tag house">house</span>{{end}}` +
		`{{with .Warn}} <span class="tag warn">{{.}}</span>{{end}}</span>`))

// render writes the markup of Who for pages at root.
func (p player) render(root string) template.HTML {
	if p.Pubkey == "" {
		return ""
	}
	var b strings.Builder
	err := whoTpl.Execute(&b, struct {
		Root, Href, Npub, Name, Short, Warn string
		Daemon                              bool
	}{root, p.Href, p.Npub, p.Name, p.Short, p.Warn, p.Daemon})
	if err != nil {
		return template.HTML(template.HTMLEscapeString(p.Label()))
	}
	return template.HTML(b.String())
}

// Label is the name, or the short npub for an account without one.
func (p player) Label() string {
	if p.Name != "" {
		return p.Name
	}
	return p.Short
}

func (p player) pgnName() string {
	if p.Pubkey == "" {
		return "?"
	}
	return p.Label()
}

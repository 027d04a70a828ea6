package site

import (
	"vesper/analysis"
	"vesper/match"
	"vesper/ratings"
	"vesper/site/opening"
)

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

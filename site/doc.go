// Package site builds the public static site of vesper: an index of live,
// open and finished matches, a page per match, a page per player, the
// chess and gomoku ratings, a how-to-play page, the protocol (PROTOCOL.md,
// embedded: protocol.html and protocol.md), and the feeds matches.json and
// ratings.json for agents.
//
// Build takes everything as values (folded match states, seen_at times,
// parsed profiles, ratings and now) and reads neither the store nor the
// clock. Each match gets m/<id>.html, the match.json of PROTOCOL.md
// section 6 beside it as m/<id>.json (events exactly as signed, so
// `vesper verify` recomputes the summary from the file alone) and, for
// chess, m/<id>.pgn. Paths are built from hex ids only; names and other
// relay text never reach a path.
//
// Analysis (issue 18). A finished game's move grades (Input.Analyses, the
// analysis package's analysis.json) are shown when they fit the game
// (grades.go): on the match page an evaluation graph (chess: inline SVG,
// White's Win% after each ply, forced mates on the edge), a mark beside
// each move in the move list and the tag in words at each replay position,
// the per-player summary (accuracy, average centipawn loss, the count of
// each tag), the thresholds of analysis, and the engine, its version and
// depth; on the player page the mean accuracy over analysed chess games
// and blunders per 100 graded moves. The analysis is published as
// m/<id>.analysis.json, written by this package with fixed rounding so the
// same analysis gives the same bytes. A failed analysis, or one that does
// not fit, shows no grade and says it failed; with Input.Analysing a final
// game not analysed yet says it is being analysed. Engine names and moves
// are outside text, cleaned and escaped like relay text. A caller with
// many analyses passes their statuses (Input.AnalysisStatus) and a reader
// (Input.LoadAnalysis) instead of them all: a build then loads one only to
// render its match, and holds a few at a time (analyses.go).
//
// Table talk and reasoning (PROTOCOL.md section 8, issue 27). A match
// page shows each move's comment (cut at 300 code points), the effort the
// player reports (attempts, usage: marked self-reported, absent never
// shown as zero) and, once the game is over, each committed reasoning as
// the reveal package checks it against the match's reveals (State.Reveals):
// verified, revealed during the game, or not matching (then its text is
// not shown); while the game is live no reasoning text and no plan check
// is shown, whatever was revealed. Verified reasoning of a counted move
// says whether it names the move played (reveal.NamesMove, rule stated on
// the page). match.json carries the reveals exactly as signed, and
// m/<id>.reasoning.json the check. A profile's self-reported identity
// (section 8.4) is shown as what the account "says it is"; models.html,
// the ladder of models (models.go, issue 37), groups listed players by it,
// one ladder per game kind, rated by one Bradley-Terry fit over all final
// games (ratings.BradleyTerry) with the record, the split by side, the
// analysis's figures and what the moves report (refused answers, ignored
// and fallback moves, verified reasoning, tokens, cost, time), and
// models.json carries the same (docs/MODELS-JSON.md). A move's talk also
// shows at its ply in the replay, a fallback move marked †.
// h/<a>-<b>.html is every game between two players, linked from their
// match pages.
//
// Game pages (issue 26, gamepage.go). A match page opens as a Lichess
// reader expects: the players with their ratings at the game, the result,
// the opening (ECO code and name of the latest position the opening table
// knows, site/opening; Input.Openings) and the board, beside the moves
// with the time each took (created_at since the previous counted move, or
// the accept). Below: how the result became final, what a house game is
// (Input.HouseStrength), the crosstable of the two players over their
// rated games of that kind (the rated games the build already holds, so
// Build, BuildEach and Update agree, and a new result renders their other
// pages again), the analysis with the evaluation graph as navigation (a
// link per ply), and the keys, ids, nevent and files in a <details> block.
//
// References (NIP-19, issue 19). Each match page names its challenge as
// an nevent with the challenger as author and up to three relays that
// delivered it (Input.Relays) as hints, as text to copy into a client.
//
// Safety. Pages are html/template output with a Content-Security-Policy
// meta tag that allows no script at all (default-src 'none'; inline styles
// and the data: favicon only), load nothing from elsewhere, and use no
// JavaScript: the replay is CSS :target. Every string that came from a
// relay is cleaned (valid UTF-8, no control or bidi characters, bounded
// length) and escaped for its context; profile links are kept only when they
// are https URLs, and profile pictures are never loaded. The boards and the
// rating chart are SVG written by this package from numbers and fixed
// strings only (no user text; the evaluation graph's description adds the
// replay's move labels and the engine's name, escaped), and player links (player.Who) go through a
// small html/template of their own, rendered once per player.
//
// Listing. Only accounts whose kind-0 profile declares "bot": true (NIP-24),
// and the daemon, are listed on the index, the ratings pages and the feeds;
// Input.ListAll lists everyone. Every match still has its page.
//
// Publishing. outDir is a symlink that Build switches atomically from the
// previous build directory to the new one (see output.go), so a reader
// never sees half a site. A match's files are carried over from the
// previous build by hard link, without rendering, when a key over all their
// inputs is unchanged; other pages are rendered and linked when their bytes
// are unchanged.
//
// Updating. Every page but a match's own is rendered from the match's card
// (card.go: its players, status, result and times, a digest of its
// events' ids and seen_at, and of its analysis.json with the players'
// figures from it), and each build stores its cards beside the
// manifest. Update builds the next site from the previous build's cards
// and the matches that changed (folded again by the caller's Loader), so a
// periodic rebuild folds only those; Stale tells a caller that kept no
// marks (a restarted daemon) which matches differ from the published
// build. Update's output is byte for byte Build's over the same matches.
package site

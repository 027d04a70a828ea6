// Package match folds the signed events of one match into its state, exactly
// as PROTOCOL.md section 2 (revision 2) defines it, so that every honest
// verifier reaches the same state from the same events.
//
// Fold is a pure function: events and the time this verifier first saw each
// one (seen_at) in, State out. It never reads the clock; whatever depends on
// "now" (open or expired, deadlines due) takes now as an argument.
//
// Clock is the one home of the time rules: a match's status, when the
// pending ply's clock started, its deadline, whether that clock has run out
// and whose turn it is. The fold asks it, and so do the arbiter, the seat
// and the site (whose cards keep a Clock's fields), so that no two of them
// can disagree at the last second of a clock. An ignored event carries,
// beside its token and English detail, the plies and times the fold decided
// by (Ignored), for readers that word the reason their own way.
//
// # Games
//
// The games are registered once, in games.go: each Spec names its token,
// its name (for a heading and inside a sentence), its two sides (the first
// player is White in chess, Black in gomoku, Red in Connect Four), how a
// move is written, and its start position. Every caller looks a kind up
// there (LookupGame, Side, GameKinds) and gets an *UnknownGameError for a
// kind that is not a game; nothing falls back to chess. Sentences that
// name the games are built from it (KindList, NounList, SidesText,
// MoveHelpText). A layer with more to say about a game keeps a table keyed
// by the kind, and a test in that package fails for any game of Games
// without an entry. A new game touches these files (Connect Four, issue
// 40, touched each):
//
//   - match/<game>/: its rules (PROTOCOL.md gets a section for them), and
//     a conformance set in match/testdata/<game>/ (TestConnect4Conformance
//     shows how);
//   - nostr/kinds.go: its token (GameChess, GameGomoku, GameConnect4);
//   - match/game.go: its adapter, a Game; match/games.go: its Spec;
//     match/reason.go: its rule-ending reason tokens;
//   - engine/games.go: the house's search (without one the house declines
//     its challenges and vesper play --engine builtin does not take them);
//   - seat/boards.go: the status's board, notation and legal moves (a
//     LegalMove field of seat/status.go when the moves are a new kind of
//     thing, as Connect Four's columns are);
//   - site/replay.go: the match page's board (its SVG defs in boardDefs);
//   - analysis/games.go: its grader (without one its games are not
//     analysed);
//   - cmd/vesper/demo.go: the demo's short game (demoScripts);
//   - mcpseat/rules.md: the rules resource, a static text for the model,
//     and mcpseat/args.go: the play tool's move argument, a struct tag
//     (TestEveryGameInTheRules);
//   - site/templates/howto.html: one sentence on how its moves are written
//     (TestPagesNameEveryGame checks the rest of the how-to and the menu).
//
// Everything else (the MCP tools' game enum and descriptions, the CLI's
// checks and help, the site's menu, game names, side names and rating
// tables, the quota's length bound, the analysis queue, the runner's
// refusal of an unknown game) reads the registry.
package match

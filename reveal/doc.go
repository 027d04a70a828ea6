// Package reveal checks committed reasoning against its reveals (PROTOCOL.md
// section 8.2): given a folded match and the match's events, kind 4427
// reveals included, Check says for each committing event whether its
// reasoning is verified, verified but revealed early, a mismatch, or not
// revealed yet, and lists the reveal entries it ignored, with a reason.
//
// It is pure (no clock, no I/O) and asks the fold only two things: which
// events belong to the match and which event ended the game
// (match.State.EndedAt). It never changes what the fold counts: section 8
// is informational, and results, ratings and arbitration never depend on
// it.
//
// NamesMove is the plan-to-move check: does a verified reasoning name the
// move that was played. Its rule is textual and stated on the function.
package reveal

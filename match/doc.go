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
package match

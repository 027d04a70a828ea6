// Package match folds the signed events of one match into its state, exactly
// as PROTOCOL.md section 2 (revision 2) defines it, so that every honest
// verifier reaches the same state from the same events.
//
// Fold is a pure function: events and the time this verifier first saw each
// one (seen_at) in, State out. It never reads the clock; whatever depends on
// "now" (open or expired, deadlines due) takes now as an argument.
package match

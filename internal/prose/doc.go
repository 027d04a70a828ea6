// Package prose holds no code: its test reads every user-facing sentence
// of the repository (the string literals of non-test Go files, the site's
// templates, the Markdown docs and the MCP rules resource) and fails when
// one states a protocol number that its constant does not hold: the move
// clock (match.MoveClock), the challenge expiry (match.ChallengeExpiry),
// the future slack of rule 5 (match.FutureSlack), the house's wait
// (match.HouseWait), the fallback ruling (match.FallbackRuling), the
// reveal delay (seat.RevealAfter) and the comment's shown length
// (nostr.MaxCommentShown).
//
// Go sentences build such numbers with match.Span and match.SpanAdj, so a
// changed constant changes them; a template or a Markdown page cannot, so
// this test makes the change fail until they are rewritten. It also fails
// when a sentence spells one of the current values ("24 hours") in a way
// none of its rules recognises, so that a new sentence cannot slip past
// the next change of the constant: add a pattern for it (or, when it
// means something else, an entry of elsewhere).
//
// A second test holds docs/CONTRIBUTING.md's package table to the tree:
// every directory with Go files has its row.
package prose

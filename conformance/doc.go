// Package conformance holds the tests that check vesper's output against
// the reference implementations other clients use, run for real: chess.js
// 1.4.0 in Node, installed by `npm ci --prefix conformance/chessjs` (see
// chessjs/README.md). match/chessjs checks the chess rules against it
// (PROTOCOL.md section 4); the tests here check the PGN that the site
// writes, `vesper pgn` prints and the NIP-64 game record carries: every
// one must load in chess.js's loadPgn, the reader of the usual NIP-64
// client, and replay to vesper's own moves and final position.
//
// The package has no code besides its tests.
package conformance

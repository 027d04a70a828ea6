// Package board is the engine's own chess board: bitboards, pseudo-legal
// move generation with a pin-aware legality test, copy-make moves, FEN and
// UCI move strings, and perft.
//
// It exists for speed. The protocol's single authority on legality is
// vesper/match/chessjs (PROTOCOL.md section 4); this package mirrors the
// parts of chess.js 1.4.0 the search must foresee so that the engine sees
// the automatic endings coming:
//
//   - Key is a Zobrist hash with chess.js's notion of identity for
//     repetitions: the en-passant file is part of it exactly when an enemy
//     pawn stands beside the pawn that just moved two squares, legal capture
//     or not.
//   - InsufficientMaterial is chess.js's rule (K v K, K+minor v K, bishops
//     only all on one colour).
//   - HalfMove feeds the fifty-move rule at 100.
//
// The attack tables are computed once by pure functions and never written
// after package initialisation.
package board

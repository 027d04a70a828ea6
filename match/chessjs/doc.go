// Package chessjs is chess exactly as chess.js 1.4.0 plays it (PROTOCOL.md
// section 4), on its own board, with github.com/notnil/chess positions for
// callers that draw the board.
//
// The published system validates moves with chess.js, so every verifier must
// accept and refuse the same move strings, pick the same move, print the same
// FEN and end games at the same ply for the same reason. notnil/chess differs
// from chess.js on several of those points; this package owns the
// differences:
//
//   - Move strings go through an emulation of chess.js's permissive
//     move(string): the strict SAN comparison first, then its unanchored
//     regular expressions, with every quirk that follows (e7e8 promotes to a
//     knight, "e2e4 please" is accepted, "nf3" is refused, and so on). The
//     null move "--" and every spelling chess.js reduces to it is refused.
//   - Repetitions are counted by chess.js's own Zobrist hash (the same keys,
//     drawn from the same xoroshiro128** seed), which includes the en-passant
//     file whenever an enemy pawn stands beside a pawn that just moved two
//     squares, even when the capture would be illegal. The start position
//     counts once and every position after a move counts.
//   - The game is over exactly when chess.js isGameOver() is: checkmate,
//     stalemate, threefold repetition, a half-move clock of 100 or more, or
//     chess.js's insufficient-material cases.
//   - FEN is chess.js's fen(): the en-passant square is printed only when an
//     en-passant capture is legal.
//
// The package keeps its own board, in chess.js's terms: a mailbox board and
// the same board in chess.js's 0x88 layout, chess.js's castling and
// en-passant state, and a Zobrist hash updated square by square. It
// generates the legal moves itself, in chess.js's order, once per position
// (movegen.go), and plays them itself. notnil/chess is left the notnil
// Position that Game.Position returns, built on demand, and the last check
// on a FEN; its Game type and move generation are never used, because they
// rescan the whole history for repetitions, tag every move with check by
// playing it, and encode every legal move to SAN on each move.
//
// Repetitions are looked for among the positions since the last pawn move or
// capture, the only ones that can repeat the current one. chess.js counts
// equal hashes over the whole game, so the two differ only if a 64-bit hash
// collided between positions separated by a pawn move or capture.
//
// NewGameFromFEN accepts what chess.js's validateFen accepts, except
// positions chess.js would play incoherently: castling rights whose king or
// rook is not in place, an en-passant square with no pawn that could just have
// moved past it, and a side not to move that is in check. Protocol games
// always start from the standard position.
package chessjs

// Package engine is vesper's built-in player for the games of PROTOCOL.md:
// chess (section 4), gomoku (section 5) and Connect Four (section 5.1). It
// is what the daemon plays its own games with (section 3).
//
// The entry points are pure functions of their input and limits: a
// single-threaded search, a fresh transposition table on every call, and
// with a node limit (and no time limit) the same input always gives the
// same move. Zero limits mean a default node budget, so a call without
// limits is deterministic too.
//
// The engine keeps its own fast board (vesper/engine/board) and never
// decides what is legal for the protocol: vesper/match/chessjs does. It does
// mirror the protocol's automatic endings (threefold repetition as chess.js
// counts it, the fifty-move rule at half-move clock 100, insufficient
// material) so that its search sees them coming: a move that repeats a
// position for the third time scores as a draw, which a losing side seeks
// and a winning side avoids.
//
// Subpackages: board (bitboards, move generation, perft), search (the chess
// search and evaluation), gomoku (the gomoku player), connect4 (the
// Connect Four player and the exact solver that grades its games) and uci
// (the UCI protocol loop behind `vesper engine uci`).
package engine

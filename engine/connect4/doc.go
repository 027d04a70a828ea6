// Package connect4 is the engine's Connect Four player and exact solver
// for the rules of PROTOCOL.md section 5.1: 7 columns (a-g) by 6 rows, a
// move names a column and the disc falls to its lowest empty cell, four in
// a line wins, the first player (Red) moves first.
//
// A position is two bitboards, one column per 7 bits (6 cells and a spare
// bit that keeps the columns apart when shifting), so that a four in a row
// in any direction is four shifted ANDs and the cells that would complete
// one are a handful more.
//
// Best plays: an iterative-deepening alpha-beta whose leaves count the
// four-cell windows each side alone holds, moves ordered from the centre
// out, with a transposition table; a node limit makes it deterministic.
//
// Solver is exact: it answers win, draw or loss for the side to move, or
// Unknown when its node budget runs out, never an estimate.
package connect4

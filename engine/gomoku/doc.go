// Package gomoku is the engine's gomoku player for the rules of
// PROTOCOL.md section 5: a 15x15 board, the first player moves first, five
// or more in a row wins, points written "h8" (columns a-o, rows 1-15).
//
// Move choice has three layers, each deterministic:
//
//  1. Rules that are never wrong: complete a five, block the opponent's
//     only five-point, make an open four (or two fours) when the opponent
//     has no four.
//  2. A threat search: victory by continuous fours (VCF) for us, and a
//     check that the move we choose leaves the opponent no VCF.
//  3. A shallow alpha-beta over the best-looking points, where every node
//     applies the rules of layer 1 (so an unanswered open three is seen as
//     lost two plies later) and leaves are scored by counting, for each
//     side, the five-point windows it alone occupies.
//
// Line shapes (five, open four, four, open three, three, open two) are read
// from a table indexed by the eight cells around a point on one line.
package gomoku

// Package search is the engine's chess search: iterative deepening
// negamax alpha-beta with principal-variation search, a quiescence search
// on captures (all moves when in check), a transposition table, move
// ordering by hash move, MVV-LVA, killers and history, a check extension,
// null-move pruning (not with fewer than two pieces, where zugzwang lurks)
// and mild late-move reductions.
//
// Evaluation is material and piece-square tables, tapered from middlegame
// to endgame by the remaining pieces, with a few pawn, mobility and king
// terms and an endgame push of a bare king to the edge.
//
// The search knows the protocol's automatic endings (PROTOCOL.md section
// 4) and scores them as chess.js ends them: checkmate first, then
// stalemate, a position occurring for the third time in the game (counted
// with the start position and board.Position.Key's chess.js identity),
// half-move clock 100, insufficient material. A repetition inside the
// search tree also scores as a draw, since the side that repeated can do
// it again. Game carries the history that makes this possible.
//
// Single-threaded; with a node limit and a fresh Searcher the result is a
// function of the input alone.
package search

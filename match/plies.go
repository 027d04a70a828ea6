package match

import (
	"vesper/match/gomoku"
	"vesper/nostr"
)

// MaxPlies bounds the board moves of a game of kind under its rules, all
// of which end a game by themselves (PROTOCOL.md section 5), so that a
// caller can tell a long game from a flood without playing it. Gomoku's
// board has 225 points, each taken once. Chess ends at the fifty-move rule
// (a half-move clock of 100), which only a pawn move or a capture resets,
// and a game has at most 96 pawn moves (8 pawns a side, 6 steps each) and
// 30 captures: 127 stretches of at most 100 plies between 126 resets. An
// unknown kind has no moves: 0.
func MaxPlies(kind string) int {
	switch kind {
	case nostr.GameGomoku:
		return gomoku.Size * gomoku.Size
	case nostr.GameChess:
		const resets = 8*2*6 + 30 // pawn steps and captures
		return resets + (resets+1)*100
	}
	return 0
}

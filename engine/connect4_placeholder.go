package engine

import (
	"fmt"

	"vesper/match/connect4"
)

// PLACEHOLDER (issue 40): the branch c4engine replaces this file with the
// house's Connect Four search (engine/connect4). Until then the engine
// answers with the legal column nearest the centre, so that every game
// of match.Games has an entry in players and its guard tests hold; it
// plays legally, not well.

// BestConnect4Move returns the engine's column ("d") for the player to
// move after moves (columns as PROTOCOL.md section 5.1 accepts them). It
// fails on a move that is not a column, a full column, or a game that is
// over.
func BestConnect4Move(moves []string, _ Limits) (string, error) {
	g := connect4.NewGame()
	for i, m := range moves {
		if _, err := g.Move(m); err != nil {
			return "", fmt.Errorf("engine: ply %d: %w", i+1, err)
		}
	}
	if over, _, reason := g.Outcome(); over {
		return "", fmt.Errorf("%w: %s", ErrGameOver, reason)
	}
	for _, c := range []int{3, 2, 4, 1, 5, 0, 6} {
		if g.Height(c) < connect4.Rows {
			return connect4.ColumnName(c), nil
		}
	}
	return "", fmt.Errorf("%w: %s", ErrGameOver, connect4.ReasonBoardFull)
}

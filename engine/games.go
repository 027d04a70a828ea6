package engine

import (
	"fmt"

	"vesper/nostr"
)

// players is the engine's search for each game it plays, keyed by the
// challenge's game token. A game the fold plays and this table lacks is
// one the house declines (Plays), never one it plays as chess.
var players = map[string]func(moves []string, lim Limits) (string, error){
	nostr.GameChess:    func(moves []string, lim Limits) (string, error) { return BestChessMove("", moves, lim) },
	nostr.GameGomoku:   BestGomokuMove,
	nostr.GameConnect4: BestConnect4Move,
}

// Plays reports whether the engine has a search for game kind.
func Plays(kind string) bool {
	_, ok := players[kind]
	return ok
}

// BestMove returns the engine's move for the player to move after moves
// (canonical, as the fold records them) in a game of kind, from its start
// position: BestChessMove, BestGomokuMove or BestConnect4Move, or an error for a game the
// engine does not play.
func BestMove(kind string, moves []string, lim Limits) (string, error) {
	best, ok := players[kind]
	if !ok {
		return "", fmt.Errorf("engine: no search for game %q", kind)
	}
	return best(moves, lim)
}

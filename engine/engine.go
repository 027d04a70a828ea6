package engine

import (
	"errors"
	"fmt"
	"time"

	"vesper/engine/board"
	"vesper/engine/connect4"
	"vesper/engine/gomoku"
	"vesper/engine/search"
)

// Limits bound a search. Any zero field is no bound; all zero means the
// default node budget of the game. When several are set the first reached
// ends the search. Time makes the result depend on the machine; Nodes and
// Depth do not.
type Limits struct {
	Nodes int64
	Depth int
	Time  time.Duration
}

// DefaultChessNodes is the chess node budget of a call with zero Limits
// (about a second); gomoku's defaults are in vesper/engine/gomoku.Limits,
// Connect Four's in vesper/engine/connect4.DefaultNodes.
const DefaultChessNodes = 500_000

// hashMB is the transposition table of one BestChessMove call.
const hashMB = 16

// ErrGameOver is returned when the position is already over by rule; the
// error's text names the reason token of PROTOCOL.md section 1.
var ErrGameOver = errors.New("engine: the game is over")

// BestChessMove replays uciMoves (canonical UCI, "e7e8q") from startFEN
// (the standard start position if empty) and returns the engine's move in
// canonical UCI. It fails on a bad FEN, an illegal move, a game that ended
// by rule (checkmate, stalemate, threefold repetition, fifty-move rule,
// insufficient material) at or before the last move, or no legal move.
func BestChessMove(startFEN string, uciMoves []string, lim Limits) (string, error) {
	mv, _, err := ChessMoveScored(startFEN, uciMoves, lim)
	return mv, err
}

// MateCP is the score ChessMoveScored gives a forced mate (negative when
// the side to move is mated).
const MateCP = 100_000

// ChessMoveScored is BestChessMove with the search's score in centipawns
// from the side to move's view (MateCP for a mate found): what a player
// weighing a draw offer needs.
func ChessMoveScored(startFEN string, uciMoves []string, lim Limits) (string, int, error) {
	g, err := search.NewGame(startFEN, uciMoves)
	if err != nil {
		return "", 0, fmt.Errorf("engine: %w", err)
	}
	if g.EndedAt >= 0 {
		return "", 0, fmt.Errorf("%w: %s after move %d", ErrGameOver, g.Reason, g.EndedAt)
	}
	sl := search.Limits{Nodes: lim.Nodes, Depth: lim.Depth, Time: lim.Time}
	if sl == (search.Limits{}) {
		sl.Nodes = DefaultChessNodes
	}
	res, err := search.NewSearcher(hashMB).Search(g, sl, nil)
	if err != nil {
		return "", 0, fmt.Errorf("engine: %w", err)
	}
	cp := res.Score
	switch {
	case res.Mate > 0:
		cp = MateCP
	case res.Mate < 0:
		cp = -MateCP
	}
	return res.Move.UCI(), cp, nil
}

// BestGomokuMove returns the engine's point ("h8") for the player to move
// after moves (points as PROTOCOL.md section 5 accepts them). It fails on a
// bad or occupied point, a game that already has five in a row, or a full
// board.
func BestGomokuMove(moves []string, lim Limits) (string, error) {
	m, err := gomoku.Best(moves, gomoku.Limits{Nodes: lim.Nodes, Depth: lim.Depth, Time: lim.Time})
	var over *gomoku.OverError
	if errors.As(err, &over) {
		return "", fmt.Errorf("%w: %s", ErrGameOver, over.Reason)
	}
	if err != nil {
		return "", fmt.Errorf("engine: %w", err)
	}
	return m, nil
}

// BestConnect4Move returns the engine's column ("d") for the player to
// move after moves (columns as PROTOCOL.md section 5.1 accepts them). It
// fails on a bad or full column and on a game already over.
func BestConnect4Move(moves []string, lim Limits) (string, error) {
	m, err := connect4.Best(moves, connect4.Limits{Nodes: lim.Nodes, Depth: lim.Depth, Time: lim.Time})
	var over *connect4.OverError
	if errors.As(err, &over) {
		return "", fmt.Errorf("%w: %s", ErrGameOver, over.Reason)
	}
	if err != nil {
		return "", fmt.Errorf("engine: %w", err)
	}
	return m, nil
}

// StartFEN is the standard initial position.
const StartFEN = board.StartFEN

package search

import (
	"fmt"

	"vesper/engine/board"
)

// Reasons a game ends by rule, the tokens of PROTOCOL.md section 1, in the
// precedence of section 2.
const (
	ReasonCheckmate            = "checkmate"
	ReasonStalemate            = "stalemate"
	ReasonThreefoldRepetition  = "threefold_repetition"
	ReasonFiftyMoveRule        = "fifty_move_rule"
	ReasonInsufficientMaterial = "insufficient_material"
)

// Game is a position with the keys of every position since the start, the
// start counted once (PROTOCOL.md section 4), which the search needs to
// count repetitions as chess.js does.
type Game struct {
	Pos     board.Position
	history []uint64
	// EndedAt is the number of moves after which the game had already
	// ended by rule, or -1. A list that goes on past the end is still
	// replayed so tools can analyse it, but the protocol would not count
	// those moves.
	EndedAt int
	Reason  string
}

// NewGame replays uciMoves from fen (board.StartFEN if empty).
func NewGame(fen string, uciMoves []string) (*Game, error) {
	if fen == "" {
		fen = board.StartFEN
	}
	pos, err := board.ParseFEN(fen)
	if err != nil {
		return nil, err
	}
	g := &Game{Pos: pos, history: []uint64{pos.Key()}, EndedAt: -1}
	if r := g.over(); r != "" {
		g.EndedAt, g.Reason = 0, r
	}
	for i, s := range uciMoves {
		m, err := g.Pos.ParseUCI(s)
		if err != nil {
			return nil, fmt.Errorf("search: move %d: %w", i+1, err)
		}
		g.Play(m)
		if g.EndedAt < 0 {
			if r := g.over(); r != "" {
				g.EndedAt, g.Reason = i+1, r
			}
		}
	}
	return g, nil
}

// Play appends a legal move.
func (g *Game) Play(m board.Move) {
	g.Pos.Apply(m)
	g.history = append(g.history, g.Pos.Key())
}

// Repetitions is how many times the current position has occurred.
func (g *Game) Repetitions() int {
	n, k := len(g.history)-1, g.Pos.Key()
	count := 1
	for i := n - 2; i >= 0 && i >= n-g.Pos.HalfMove(); i -= 2 {
		if g.history[i] == k {
			count++
		}
	}
	return count
}

// Over is the reason the game has ended by rule in the current position,
// or "" while it goes on.
func (g *Game) Over() string { return g.over() }

func (g *Game) over() string {
	if !g.Pos.HasLegalMove() {
		if g.Pos.InCheck() {
			return ReasonCheckmate
		}
		return ReasonStalemate
	}
	switch {
	case g.Repetitions() >= 3:
		return ReasonThreefoldRepetition
	case g.Pos.HalfMove() >= 100:
		return ReasonFiftyMoveRule
	case g.Pos.InsufficientMaterial():
		return ReasonInsufficientMaterial
	}
	return ""
}

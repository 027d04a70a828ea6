package match

import (
	"crypto/sha256"
	"encoding/hex"

	"vesper/match/chessjs"
	"vesper/match/connect4"
	"vesper/match/gomoku"
	"vesper/nostr"
)

// Game is a board game as the fold needs it: play a move string if it is
// legal, say whether the game ended by rule, and hash the position.
type Game interface {
	// Kind is the game's Spec.Kind.
	Kind() string
	// Play applies move if it is legal in the current position and returns
	// its canonical form (UCI for chess, a lowercase point for gomoku, a
	// lowercase column for Connect Four).
	Play(move string) (canonical string, err error)
	// Outcome reports an end by rule: winner is First, Second or Draw.
	Outcome() (over bool, winner string, reason Reason)
	// Hash is the final_hash of the current position (section 1).
	Hash() string
	// Plies is the number of board moves played.
	Plies() int
	// Moves are the board moves in canonical form.
	Moves() []string
	// Clone returns an independent copy, for trying moves.
	Clone() Game
}

// NewGame returns the start position of a game kind, or an
// *UnknownGameError.
func NewGame(kind string) (Game, error) {
	g, err := LookupGame(kind)
	if err != nil {
		return nil, err
	}
	return g.New(), nil
}

func hashString(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// Chess adapts the chess.js-compatible rules layer.
type Chess struct {
	G     *chessjs.Game
	moves []string
}

// Kind implements Game.
func (c *Chess) Kind() string { return nostr.GameChess }

// Play implements Game.
func (c *Chess) Play(move string) (string, error) {
	m, err := c.G.Move(move)
	if err != nil {
		return "", err
	}
	u := m.UCI()
	c.moves = append(c.moves, u)
	return u, nil
}

// Outcome implements Game: chess.js isGameOver(), the mover wins a mate.
func (c *Chess) Outcome() (bool, string, Reason) {
	o := c.G.Outcome()
	if !o.Over {
		return false, "", ""
	}
	if o.Draw {
		return true, Draw, Reason(o.Reason)
	}
	if o.Winner == chessjs.White {
		return true, First, Reason(o.Reason)
	}
	return true, Second, Reason(o.Reason)
}

// Hash implements Game: sha256 of "chess:" + chess.js fen().
func (c *Chess) Hash() string { return hashString("chess:" + c.G.FEN()) }

// Plies implements Game.
func (c *Chess) Plies() int { return len(c.moves) }

// Moves implements Game.
func (c *Chess) Moves() []string { return c.moves }

// Clone implements Game.
func (c *Chess) Clone() Game {
	return &Chess{G: c.G.Clone(), moves: append([]string(nil), c.moves...)}
}

// Gomoku adapts the gomoku rules.
type Gomoku struct{ G *gomoku.Game }

// Kind implements Game.
func (g *Gomoku) Kind() string { return nostr.GameGomoku }

// Play implements Game.
func (g *Gomoku) Play(move string) (string, error) { return g.G.Move(move) }

// Outcome implements Game.
func (g *Gomoku) Outcome() (bool, string, Reason) {
	return placedOutcome(g.G.Outcome())
}

// Hash implements Game.
func (g *Gomoku) Hash() string { return hashString(g.G.HashInput()) }

// Plies implements Game.
func (g *Gomoku) Plies() int { return g.G.Plies() }

// Moves implements Game.
func (g *Gomoku) Moves() []string { return g.G.Moves() }

// Clone implements Game.
func (g *Gomoku) Clone() Game { return &Gomoku{G: g.G.Clone()} }

// Connect4 adapts the Connect Four rules.
type Connect4 struct{ G *connect4.Game }

// Kind implements Game.
func (g *Connect4) Kind() string { return nostr.GameConnect4 }

// Play implements Game.
func (g *Connect4) Play(move string) (string, error) { return g.G.Move(move) }

// Outcome implements Game.
func (g *Connect4) Outcome() (bool, string, Reason) {
	return placedOutcome(g.G.Outcome())
}

// Hash implements Game.
func (g *Connect4) Hash() string { return hashString(g.G.HashInput()) }

// Plies implements Game.
func (g *Connect4) Plies() int { return g.G.Plies() }

// Moves implements Game.
func (g *Connect4) Moves() []string { return g.G.Moves() }

// Clone implements Game.
func (g *Connect4) Clone() Game { return &Connect4{G: g.G.Clone()} }

// placedOutcome reads the outcome of the games whose rules number the
// players (gomoku, Connect Four): winner 1 is the first player, 2 the
// second, 0 a draw.
func placedOutcome(over bool, winner uint8, reason string) (bool, string, Reason) {
	switch {
	case !over:
		return false, "", ""
	case winner == 1:
		return true, First, Reason(reason)
	case winner == 2:
		return true, Second, Reason(reason)
	}
	return true, Draw, Reason(reason)
}

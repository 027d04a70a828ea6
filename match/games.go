package match

import (
	"fmt"
	"strings"

	"vesper/match/chessjs"
	"vesper/match/connect4"
	"vesper/match/gomoku"
	"vesper/nostr"
)

// Spec is one game as every layer outside the rules needs to name it: the
// token a challenge carries, how pages and agents call it and its sides,
// its start position, and a bound on its length. A layer with more to say
// about a game (the engine's search, the seat's board, the site's
// drawing, the analysis) keeps its own table keyed by Kind, with a test
// that every game in Games has an entry, and answers an unknown kind with
// an error: nothing falls back to chess.
type Spec struct {
	// Kind is the challenge's "game" value, spelled in package nostr.
	Kind string
	// Name is the game's name in a heading: "Chess".
	Name string
	// Noun is the game's name inside a sentence: "chess", "Connect Four".
	Noun string
	// MoveHelp says how a move is written, for the CLI's and the MCP
	// tools' help: "a point a1..o15 such as h8".
	MoveHelp string
	// Sides name the first and the second player's side, lowercase, as
	// a player of that game says them: "white", "black" in chess; the
	// first player has the black stones in gomoku.
	Sides [2]string
	// New returns the start position.
	New func() Game
	// MaxPlies bounds the board moves of any game under its rules, all
	// of which end a game by themselves (section 5).
	MaxPlies int
}

// games are the games the fold plays, in the order pages list them.
// Adding a game means one entry here and its adapter (a Game); see the
// package doc for the other files a new game touches.
var games = []Spec{
	{
		Kind: nostr.GameChess, Name: "Chess", Noun: "chess", Sides: [2]string{"white", "black"},
		MoveHelp: "UCI such as e2e4 or e7e8q (a promotion names its piece), or SAN such as Nf3; the rules are chess.js's",
		New:      func() Game { return &Chess{G: chessjs.NewGame()} },
		// The fifty-move rule ends a game at a half-move clock of 100,
		// which only a pawn move or a capture resets: at most 96 pawn
		// moves (8 pawns a side, 6 steps each) and 30 captures, so 127
		// stretches of at most 100 plies between 126 resets.
		MaxPlies: 126 + 127*100,
	},
	{
		Kind: nostr.GameGomoku, Name: "Gomoku", Noun: "gomoku", Sides: [2]string{"black", "white"},
		MoveHelp: "a point on the 15x15 board, column a-o and row 1-15, such as h8; five in a row wins",
		New:      func() Game { return &Gomoku{G: gomoku.NewGame()} },
		MaxPlies: gomoku.Size * gomoku.Size, // a full board is a draw
	},
	{
		Kind: nostr.GameConnect4, Name: "Connect Four", Noun: "Connect Four", Sides: [2]string{connect4.Red, connect4.Yellow},
		MoveHelp: "a column a-g such as d, the disc falls to the lowest empty cell; four in a row wins",
		New:      func() Game { return &Connect4{G: connect4.NewGame()} },
		MaxPlies: connect4.Cells, // the 42nd disc ends the game
	},
}

// Games lists the games the fold plays, in the order pages list them.
func Games() []Spec { return append([]Spec(nil), games...) }

// GameKinds are the Kind of each of Games, in the same order.
func GameKinds() []string {
	out := make([]string, len(games))
	for i, g := range games {
		out[i] = g.Kind
	}
	return out
}

// UnknownGameError says that a game kind is not one of Games.
type UnknownGameError struct{ Kind string }

func (e *UnknownGameError) Error() string {
	return fmt.Sprintf("match: unknown game %q (the games are %s)", e.Kind, KindList())
}

// LookupGame returns the game of kind, or an *UnknownGameError.
func LookupGame(kind string) (Spec, error) {
	for _, g := range games {
		if g.Kind == kind {
			return g, nil
		}
	}
	return Spec{}, &UnknownGameError{Kind: kind}
}

// KindList names the games for a message: `"chess" or "gomoku"`.
func KindList() string {
	q := make([]string, len(games))
	for i, g := range games {
		q[i] = fmt.Sprintf("%q", g.Kind)
	}
	return joinList(q, "or")
}

// NounList names the games in a sentence: "chess, gomoku and Connect Four".
func NounList() string {
	q := make([]string, len(games))
	for i, g := range games {
		q[i] = g.Noun
	}
	return joinList(q, "and")
}

// SidesText names role's side in every game, for a sentence: "White in
// chess, Black in gomoku and Red in Connect Four" for First.
func SidesText(role string) string {
	var q []string
	for _, g := range games {
		if s := Side(g.Kind, role); s != "" {
			q = append(q, strings.ToUpper(s[:1])+s[1:]+" in "+g.Noun)
		}
	}
	return joinList(q, "and")
}

// MoveHelpText says how a move is written in every game: "chess: UCI
// ...; gomoku: a point ...".
func MoveHelpText() string {
	q := make([]string, len(games))
	for i, g := range games {
		q[i] = g.Noun + ": " + g.MoveHelp
	}
	return strings.Join(q, "; ")
}

// joinList joins items as a sentence does: "a, b and c".
func joinList(items []string, conj string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
}

// Side names role's side in game kind ("white", "black"...): "" for a
// role that is neither First nor Second, or a kind that is not a game.
func Side(kind, role string) string {
	g, err := LookupGame(kind)
	switch {
	case err != nil:
		return ""
	case role == First:
		return g.Sides[0]
	case role == Second:
		return g.Sides[1]
	}
	return ""
}

func isGame(kind string) bool {
	_, err := LookupGame(kind)
	return err == nil
}

package chessjs

import (
	"strconv"
	"sync"

	"github.com/notnil/chess"
)

// Game is a game from a start position: the current position, the moves
// played and the hash of every position reached, which is what repetitions
// are counted on. A Game is not safe for concurrent use; Clone gives an
// independent copy.
type Game struct {
	cur     position
	hashes  []uint64 // hashes[i] is the hash after i plies
	history []Move
}

// startPosition is the parsed start position with its legal moves, shared
// by every NewGame: a position's legal moves are never modified.
var startPosition = sync.OnceValues(func() (position, error) {
	p, err := parseFEN(StartFEN)
	if err == nil {
		p.legalMoves()
	}
	return p, err
})

// NewGame returns a game at the standard start position.
func NewGame() *Game {
	p, err := startPosition()
	if err != nil {
		panic("chessjs: the start position does not parse: " + err.Error())
	}
	p.reps = 1
	return &Game{cur: p, hashes: []uint64{p.hash}}
}

// NewGameFromFEN returns a game starting at fen, which counts once for
// repetitions, as chess.js's load() counts it. The FENs accepted are
// chess.js's, less the incoherent ones described in the package doc.
func NewGameFromFEN(fen string) (*Game, error) {
	p, err := parseFEN(fen)
	if err != nil {
		return nil, err
	}
	p.reps = 1
	return &Game{cur: p, hashes: []uint64{p.hash}}, nil
}

// Move plays s with chess.js's new Chess(fen).move(s) semantics (permissive
// parsing) and returns the move chess.js picks. A string chess.js refuses,
// or parses as the null move, returns a *MoveError and changes nothing. Like
// chess.js, Move does not refuse moves once the game is over by a draw rule:
// callers stop at Outcome().Over.
func (g *Game) Move(s string) (Move, error) {
	m, err := g.cur.parse(s)
	if err != nil {
		return Move{}, err
	}
	return g.play(m), nil
}

// Parse is Move without playing the move.
func (g *Game) Parse(s string) (Move, error) {
	m, err := g.cur.parse(s)
	if err != nil {
		return Move{}, err
	}
	return g.cur.publicMove(m, g.cur.checkSuffix(m)), nil
}

func (g *Game) play(m *legalMove) Move {
	prev := &g.cur
	next := prev.apply(m)
	suffix := ""
	if next.check {
		suffix = "+"
		if len(next.legalMoves()) == 0 {
			suffix = "#"
		}
	}
	mv := prev.publicMove(m, suffix)
	g.hashes = append(g.hashes, next.hash)
	next.reps = g.countRepetitions(next.hash, next.half)
	g.cur = next
	g.history = append(g.history, mv)
	return mv
}

// countRepetitions counts the positions equal to the last one. Only the
// positions since the last pawn move or capture (half of them back, at
// most) can be equal to it.
func (g *Game) countRepetitions(h uint64, half int) int {
	n := 0
	for i := max(0, len(g.hashes)-1-half); i < len(g.hashes); i++ {
		if g.hashes[i] == h {
			n++
		}
	}
	return n
}

// LegalMoves returns the legal moves in chess.js's moves() order.
func (g *Game) LegalMoves() []Move {
	legal := g.cur.legalMoves()
	out := make([]Move, len(legal))
	for i := range legal {
		out[i] = g.cur.publicMove(&legal[i], g.cur.checkSuffix(&legal[i]))
	}
	return out
}

// FEN returns the position exactly as chess.js fen() prints it.
func (g *Game) FEN() string {
	var buf [96]byte
	return string(g.cur.appendFEN(buf[:0]))
}

// Turn returns the side to move.
func (g *Game) Turn() Color { return g.cur.turn }

// InCheck reports whether the side to move is in check.
func (g *Game) InCheck() bool { return g.cur.check }

// Plies returns the number of moves played since the start position.
func (g *Game) Plies() int { return len(g.history) }

// Outcome reports chess.js's isGameOver() and the first reason that holds,
// in the order checkmate, stalemate, threefold_repetition, fifty_move_rule,
// insufficient_material.
func (g *Game) Outcome() Outcome {
	p := &g.cur
	noMoves := len(p.legalMoves()) == 0
	switch {
	case noMoves && p.check:
		return Outcome{Over: true, Winner: p.turn.Other(), Reason: ReasonCheckmate}
	case noMoves:
		return Outcome{Over: true, Draw: true, Reason: ReasonStalemate}
	case p.reps >= 3:
		return Outcome{Over: true, Draw: true, Reason: ReasonThreefoldRepetition}
	case p.half >= 100:
		return Outcome{Over: true, Draw: true, Reason: ReasonFiftyMoveRule}
	case p.insufficientMaterial():
		return Outcome{Over: true, Draw: true, Reason: ReasonInsufficientMaterial}
	}
	return Outcome{}
}

// Clone returns an independent copy. It is cheap: the copies share what
// neither will change.
func (g *Game) Clone() *Game {
	// Computed once here rather than once in each copy.
	g.cur.legalMoves()
	c := *g
	c.hashes = g.hashes[:len(g.hashes):len(g.hashes)]
	c.history = g.history[:len(g.history):len(g.history)]
	return &c
}

// Position returns the current position as notnil represents it (with
// notnil's en-passant square), built anew on each call.
func (g *Game) Position() *chess.Position {
	pos, err := g.cur.notnil()
	if err != nil {
		// Every position reached from one parseFEN accepted prints a FEN
		// notnil reads: the start one was checked, and moves keep the
		// fields in range.
		panic("chessjs: notnil refuses position " + g.FEN() + ": " + err.Error())
	}
	return pos
}

// History returns the moves played, in order.
func (g *Game) History() []Move {
	return append([]Move(nil), g.history...)
}

// hashHex is chess.js's hash(): the Zobrist hash in hexadecimal, no padding.
func (g *Game) hashHex() string { return strconv.FormatUint(g.cur.hash, 16) }

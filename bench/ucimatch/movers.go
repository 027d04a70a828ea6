package main

import (
	"math/rand/v2"
	"strings"
	"time"

	"vesper/match/chessjs"
)

// builtinMover is an in-process opponent that needs no engine: it picks
// from chessjs's legal moves, seeded per game so that a run can be
// repeated move for move.
type builtinMover struct {
	label  string
	seed   uint64
	greedy bool
	rng    *rand.Rand
}

func (b *builtinMover) name() string { return b.label }

func (b *builtinMover) newGame(game int) error {
	b.rng = rand.New(rand.NewPCG(b.seed, uint64(game)))
	return nil
}

func (b *builtinMover) close() {}

func (b *builtinMover) move(_ []string, g *chessjs.Game, _, _ time.Duration) reply {
	start := time.Now()
	legal := g.LegalMoves()
	if len(legal) == 0 {
		return reply{move: "0000", elapsed: time.Since(start)}
	}
	pick := legal
	if b.greedy {
		pick = greediest(g, legal)
	}
	m := pick[b.rng.IntN(len(pick))]
	return reply{move: m.UCI(), elapsed: time.Since(start)}
}

// pieceValue is the usual material scale; the king is never captured.
var pieceValue = map[byte]int{'p': 1, 'n': 3, 'b': 3, 'r': 5, 'q': 9}

// mateValue outranks any material a single move can win.
const mateValue = 1000

// greediest returns the moves that win the most at one ply: a mate first,
// then the value of the piece taken plus what a promotion adds. With
// nothing to win, every legal move ties and the choice is random.
func greediest(g *chessjs.Game, legal []chessjs.Move) []chessjs.Move {
	board := boardOf(g.FEN())
	best, bestScore := []chessjs.Move(nil), -1
	for _, m := range legal {
		score := 0
		if strings.HasSuffix(m.SAN, "#") {
			score = mateValue
		} else {
			victim := board[m.To]
			if victim == 0 && strings.Contains(m.SAN, "x") {
				victim = 'p' // en passant: the target square is empty
			}
			score = pieceValue[victim]
			if m.Promotion != 0 {
				score += pieceValue[m.Promotion] - pieceValue['p']
			}
		}
		switch {
		case score > bestScore:
			best, bestScore = append(best[:0], m), score
		case score == bestScore:
			best = append(best, m)
		}
	}
	return best
}

// boardOf maps squares ("e4") to lowercase piece letters from a FEN's
// placement field.
func boardOf(fen string) map[string]byte {
	out := make(map[string]byte, 32)
	placement, _, _ := strings.Cut(fen, " ")
	for i, row := range strings.Split(placement, "/") {
		rank := byte('8' - i)
		file := byte('a')
		for j := 0; j < len(row); j++ {
			c := row[j]
			if c >= '1' && c <= '8' {
				file += c - '0'
				continue
			}
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			out[string([]byte{file, rank})] = c
			file++
		}
	}
	return out
}

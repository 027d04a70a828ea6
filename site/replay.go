package site

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"

	"vesper/match/chessjs"
	"vesper/match/gomoku"
	"vesper/nostr"
)

// step is one position of the replay: Ply 0 is the start, Ply n the
// position after the n-th counted move.
type step struct {
	Ply   int
	Label string // "12... Nf6", "" for the start
	Board template.HTML
}

// replay is a game replayed from State.Moves: the moves as people read them
// (SAN for chess, points for gomoku) and a board for every ply.
type replay struct {
	Defs  template.HTML
	Moves []string // SAN or point, one per counted move
	Steps []step
	// Err is set when a stored move could not be replayed. It cannot happen
	// for states from match.Fold (moves are counted only when legal), but a
	// page must still come out if it does: the replay stops there.
	Err string
}

// Final is the last position's board.
func (r *replay) Final() template.HTML {
	if len(r.Steps) == 0 {
		return ""
	}
	return r.Steps[len(r.Steps)-1].Board
}

// moveLabel is "12. e4" or "12... e5" for ply n (1-based).
func moveLabel(n int, move string) string {
	num := strconv.Itoa((n + 1) / 2)
	if n%2 == 1 {
		return num + ". " + move
	}
	return num + "... " + move
}

func replayGame(kind string, moves []string, defs *boardDefs) replay {
	if kind == nostr.GameGomoku {
		return replayGomoku(moves, defs.gomoku)
	}
	return replayChess(moves, defs.chess)
}

func replayChess(moves []string, defs template.HTML) replay {
	r := replay{Defs: defs, Moves: make([]string, 0, len(moves)), Steps: make([]step, 0, len(moves)+1)}
	g := chessjs.NewGame()
	start := parseFEN(g.FEN())
	r.Steps = append(r.Steps, step{Board: start.svg("Start position")})
	for i, mv := range moves {
		m, err := g.Move(mv)
		if err != nil {
			r.Err = fmt.Sprintf("ply %d could not be replayed", i+1)
			break
		}
		n := i + 1
		b := parseFEN(g.FEN())
		b.from, b.to = squareIndex(m.From), squareIndex(m.To)
		if strings.HasSuffix(m.SAN, "+") || strings.HasSuffix(m.SAN, "#") {
			b.check = b.kingSquare(n%2 == 0) // White is to move after an even ply
		}
		label := moveLabel(n, m.SAN)
		r.Moves = append(r.Moves, m.SAN)
		r.Steps = append(r.Steps, step{Ply: n, Label: label, Board: b.svg("Position after " + label)})
	}
	return r
}

func replayGomoku(moves []string, defs template.HTML) replay {
	r := replay{Defs: defs, Moves: make([]string, 0, len(moves)), Steps: make([]step, 0, len(moves)+1)}
	g := gomoku.NewGame()
	points := make([]gomoku.Point, 0, len(moves))
	for i, mv := range moves {
		norm, err := g.Move(mv)
		if err != nil {
			r.Err = fmt.Sprintf("ply %d could not be replayed", i+1)
			break
		}
		p, _ := gomoku.ParsePoint(norm)
		points = append(points, p)
		r.Moves = append(r.Moves, norm)
	}
	r.Steps = append(r.Steps, step{Board: gomokuSVG(points, 0, false, "Empty board")})
	for n := 1; n <= len(points); n++ {
		label := moveLabel(n, r.Moves[n-1])
		// Only the final board numbers its stones: numbering every step
		// would double the page for little use.
		r.Steps = append(r.Steps, step{Ply: n, Label: label, Board: gomokuSVG(points, n, n == len(points), "Position after "+label)})
	}
	return r
}

// boardDefs are the shared SVG definitions, computed once per build.
type boardDefs struct {
	chess, gomoku template.HTML
}

func newBoardDefs() *boardDefs {
	return &boardDefs{chess: template.HTML(chessDefs()), gomoku: template.HTML(gomokuDefs())}
}

package seat

import (
	"fmt"

	"vesper/match"
	"vesper/match/chessjs"
	"vesper/match/connect4"
	"vesper/match/gomoku"
	"vesper/nostr"
)

// boards fill a status's position fields (board, moves in the game's
// notation, legal moves) for each game, keyed by the game's token. A game
// the fold plays and this table lacks gets a board that says so, never a
// chess board.
var boards = map[string]func(out *Status, st *match.State){
	nostr.GameChess:    chessBoard,
	nostr.GameGomoku:   gomokuBoard,
	nostr.GameConnect4: connect4Board,
}

// board fills the position fields by replaying the counted moves.
func (out *Status) board(st *match.State) {
	fill, ok := boards[st.Kind]
	if !ok {
		out.Board = fmt.Sprintf("(vesper cannot draw a board of game %q)", st.Kind)
		return
	}
	fill(out, st)
}

func gomokuBoard(out *Status, st *match.State) {
	g := gomoku.NewGame()
	for _, m := range st.Moves {
		_, _ = g.Move(m)
	}
	out.Board = g.String()
	out.SANMoves = append(out.SANMoves, st.Moves...)
	if st.Accepted && !st.Over || !st.Accepted && st.Plies() == 0 {
		for col := 0; col < gomoku.Size; col++ {
			for row := 0; row < gomoku.Size; row++ {
				p := gomoku.Point{Col: col, Row: row}
				if g.At(p) == 0 {
					out.LegalMoves = append(out.LegalMoves, LegalMove{Point: p.String()})
				}
			}
		}
	}
}

// connect4Board draws the columns, row 6 on top, and lists the columns a
// disc may still go into.
func connect4Board(out *Status, st *match.State) {
	g := connect4.NewGame()
	for _, m := range st.Moves {
		_, _ = g.Move(m)
	}
	out.Board = g.String()
	out.SANMoves = append(out.SANMoves, st.Moves...)
	if st.Accepted && !st.Over || !st.Accepted && st.Plies() == 0 {
		for _, c := range g.Legal() {
			out.LegalMoves = append(out.LegalMoves, LegalMove{Column: c})
		}
	}
}

func chessBoard(out *Status, st *match.State) {
	// The fold's own board has the history; a compacted state has none,
	// and is replayed.
	var g *chessjs.Game
	if c, ok := st.Board().(*match.Chess); ok {
		g = c.G
	} else {
		g = chessjs.NewGame()
		for _, m := range st.Moves {
			if _, err := g.Move(m); err != nil {
				break
			}
		}
	}
	for _, mv := range g.History() {
		out.SANMoves = append(out.SANMoves, mv.SAN)
	}
	out.FEN = g.FEN()
	out.Board = g.Position().Board().Draw()
	out.InCheck = g.InCheck()
	if !st.Over && (st.Accepted || st.Plies() == 0) {
		for _, m := range g.LegalMoves() {
			out.LegalMoves = append(out.LegalMoves, LegalMove{UCI: m.UCI(), SAN: m.SAN})
		}
	}
	out.PGN = statusPGN(st, out.SANMoves)
}

package chessjs_test

import (
	"errors"
	"fmt"

	"vesper/match/chessjs"
)

// Move accepts what chess.js's permissive move() accepts and nothing else.
func ExampleGame_Move() {
	g := chessjs.NewGame()
	for _, s := range []string{"Pe2-e4", "e7e5", "Ng1f3 please", "nc6", "--", "Nb8-c6"} {
		m, err := g.Move(s)
		switch {
		case errors.Is(err, chessjs.ErrNullMove):
			fmt.Printf("%-12q null move, refused\n", s)
		case err != nil:
			fmt.Printf("%-12q refused\n", s)
		default:
			fmt.Printf("%-12q %s (%s)\n", s, m.SAN, m.UCI())
		}
	}
	fmt.Println(g.FEN())
	// Output:
	// "Pe2-e4"     e4 (e2e4)
	// "e7e5"       e5 (e7e5)
	// "Ng1f3 please" Nf3 (g1f3)
	// "nc6"        refused
	// "--"         null move, refused
	// "Nb8-c6"     Nc6 (b8c6)
	// r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3
}

// A coordinate promotion without a piece promotes to a knight, as in chess.js.
func ExampleNewGameFromFEN() {
	g, err := chessjs.NewGameFromFEN("k7/2P5/1K6/8/8/8/8/8 w - - 0 1")
	if err != nil {
		panic(err)
	}
	m, _ := g.Parse("c7c8")
	fmt.Println(m.SAN, m.UCI())
	m, _ = g.Parse("c7c8q")
	fmt.Println(m.SAN, m.UCI())
	// Output:
	// c8=N c7c8n
	// c8=Q# c7c8q
}

// The game ends when chess.js isGameOver() would say so.
func ExampleGame_Outcome() {
	g := chessjs.NewGame()
	for _, s := range []string{"Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"} {
		if _, err := g.Move(s); err != nil {
			panic(err)
		}
	}
	fmt.Printf("%+v after %d plies\n", g.Outcome(), g.Plies())
	// Output:
	// {Over:true Draw:true Winner:- Reason:threefold_repetition} after 8 plies
}

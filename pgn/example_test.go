package pgn_test

import (
	"fmt"

	"vesper/pgn"
)

// A name with quotes and a backslash, as a kind-0 profile may hold it,
// written so that chess.js 1.4.0 loads the game.
func ExampleWrite() {
	fmt.Print(pgn.Write([]pgn.Tag{
		{Name: "White", Value: `Bob "the rook" \o/`},
		{Name: "Black", Value: "Alice"},
		{Name: "Result", Value: "0-1"},
	}, []string{"f3", "e5", "g4", "Qh4#"}, pgn.Result(true, "second")))
	// Output:
	// [White "Bob 'the rook' /o/"]
	// [Black "Alice"]
	// [Result "0-1"]
	//
	// 1. f3 e5 2. g4 Qh4# 0-1
}

package engine_test

import (
	"fmt"

	"vesper/engine"
)

func ExampleBestChessMove() {
	// After 1.f3 e5 2.g4 Black mates at once.
	move, err := engine.BestChessMove("", []string{"f2f3", "e7e5", "g2g4"}, engine.Limits{Nodes: 10_000})
	fmt.Println(move, err)
	// Output: d8h4 <nil>
}

func ExampleBestGomokuMove() {
	// The first player has four in a column (h8-h11) and completes five.
	move, err := engine.BestGomokuMove([]string{"h8", "a1", "h9", "a2", "h10", "a3", "h11", "a5"}, engine.Limits{Depth: 2})
	fmt.Println(move, err)
	// Output: h7 <nil>
}

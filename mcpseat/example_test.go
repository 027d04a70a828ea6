package mcpseat_test

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"vesper/internal/testkit"
	"vesper/mcpseat"
	"vesper/seat"
)

// ExampleNew serves one key's seat to an in-process client (`vesper mcp`
// does the same over stdio) and lists its tools.
func ExampleNew() {
	ctx := context.Background()
	server := mcpseat.New(mcpseat.Config{Seat: &seat.Seat{Key: testkit.Key("example"), Relays: []string{"ws://127.0.0.1:7447"}}})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(tool.Name)
	}
	// Output:
	// accept
	// challenge
	// claim_timeout
	// game_state
	// my_games
	// offer_result
	// open_challenges
	// play
	// record_reasoning
	// request_arbitration
	// resign
	// set_profile
	// sign_result
	// wait_turn
	// whoami
}

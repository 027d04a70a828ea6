package seat_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"vesper/nostr"
	"vesper/relayd"
	"vesper/seat"
)

// Two seats on one local relay: a challenge, an accept, a move, and a
// refused move with the fold's reason.
func Example() {
	ctx := context.Background()
	r, err := relayd.Start(ctx, relayd.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	alice := &seat.Seat{Relays: []string{r.URL()}, Key: nostr.GenerateKey(), Timeout: 5 * time.Second}
	bob := &seat.Seat{Relays: []string{r.URL()}, Key: nostr.GenerateKey(), Timeout: 5 * time.Second}

	ch, _ := alice.Challenge(ctx, "chess", "")
	bob.Accept(ctx, ch.Match)
	rep, _ := alice.Move(ctx, ch.Match, "Nf3")
	fmt.Println(rep.Ply, rep.Move, rep.Status.ToMove.Color, rep.Note)

	// Out of turn: refused, with no legal moves (they would be bob's).
	_, err = alice.Move(ctx, ch.Match, "e4")
	var no *seat.Refusal
	if errors.As(err, &no) {
		fmt.Println(no.Rule, no.Ply, len(no.LegalMoves))
	}
	// Output:
	// 1 g1f3 black the opponent's move
	// wrong_player 2 0
}

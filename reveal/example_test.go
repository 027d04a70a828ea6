package reveal_test

import (
	"fmt"

	"vesper/nostr"
	"vesper/reveal"
)

// A verified reasoning names the move played when it holds the SAN (with
// or without its check suffix) or the UCI as a whole token.
func ExampleNamesMove() {
	fmt.Println(reveal.NamesMove("1.e4! takes the centre", "e4", "e2e4"))
	fmt.Println(reveal.NamesMove("Qh4 and it is mate", "Qh4#", "d8h4"))
	fmt.Println(reveal.NamesMove("Nf3 develops", "f3", "f2f3"))
	// Output:
	// true
	// true
	// false
}

// The commitment a move carries and the reveal that opens it (PROTOCOL.md
// section 8.2).
func Example_commitment() {
	salt := "00112233445566778899aabbccddeeff" // nostr.NewSalt() in real use
	text := "e4 opens lines"
	fmt.Println(nostr.ReasoningHash(salt, text))
	// Output:
	// eb858917d2b43037e1f3c57e0879d30a05591a48b6dde9ac271aabacfc2001c6
}

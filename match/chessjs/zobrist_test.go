package chessjs

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite generated files (zobrist_keys.go)")

// TestZobristKeys checks the literal tables against the generator, so the
// hash that counts repetitions (PROTOCOL.md section 4) is chess.js's own.
func TestZobristKeys(t *testing.T) {
	want := zobristSource()
	if *update {
		if err := os.WriteFile("zobrist_keys.go", want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile("zobrist_keys.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("zobrist_keys.go is stale: run go test -run TestZobristKeys -update")
	}
}

// TestZobristStartHash compares with chess.js: new Chess().hash().
func TestZobristStartHash(t *testing.T) {
	g := NewGame()
	if got, want := g.hashHex(), "3436f01fd716346e"; got != want {
		t.Fatalf("start hash = %s, want %s", got, want)
	}
}

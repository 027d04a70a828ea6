package board

import (
	"errors"
	"math/rand/v2"
	"testing"
)

func mustFEN(t testing.TB, fen string) Position {
	t.Helper()
	p, err := ParseFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFENRoundTrip(t *testing.T) {
	for _, fen := range []string{
		StartFEN,
		"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
		"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
		"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
		"4k3/8/8/8/8/8/8/4K2R b K - 12 40",
	} {
		t.Run(fen, func(t *testing.T) {
			p := mustFEN(t, fen)
			if got := p.FEN(); got != fen {
				t.Errorf("FEN() = %q, want %q", got, fen)
			}
		})
	}
}

func TestParseFENDefaultsAndSanitizing(t *testing.T) {
	tests := []struct{ in, want string }{
		// chess.js appends "- - 0 1" to a short FEN.
		{"8/8/8/8/8/8/8/K6k w", "8/8/8/8/8/8/8/K6k w - - 0 1"},
		{"8/8/8/8/8/8/8/K6k b - -", "8/8/8/8/8/8/8/K6k b - - 0 1"},
		// Rights without the king or rook at home are dropped.
		{"4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1", "4k3/8/8/8/8/8/8/4K3 w - - 0 1"},
		{"r3k3/8/8/8/8/8/8/4K2R w KQkq - 0 1", "r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1"},
		// An en-passant square nobody can take on is not printed.
		{"rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 2", "rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 2"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			p := mustFEN(t, tc.in)
			if got := p.FEN(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestParseFENRejects(t *testing.T) {
	for _, fen := range []string{
		"",
		"garbage",
		"8/8/8/8/8/8/8/8 w - - 0 1",                        // no kings
		"K7/8/8/8/8/8/8/K6k w - - 0 1",                     // two white kings
		"8/8/8/8/8/8/8/K6k x - - 0 1",                      // side
		"8/8/8/8/8/8/8/K6k w X - 0 1",                      // castling
		"8/8/8/8/8/8/8/K6k w - z9 0 1",                     // en passant
		"8/8/8/8/8/8/8/K6k w - - -1 1",                     // half-move clock
		"8/8/8/8/8/8/8/K6k w - - 0 x",                      // move number
		"8/8/8/8/8/8/8/K6k w - - 0 1 extra",                // too many fields
		"9/8/8/8/8/8/8/K6k w - - 0 1",                      // bad digit
		"8/8/8/8/8/8/8/K7k w - - 0 1",                      // rank too long
		"8/8/8/8/8/8/8/K5k w - - 0 1",                      // rank too short
		"8/8/8/8/8/8/8 w - - 0 1",                          // seven ranks
		"P7/8/8/8/8/8/8/K6k w - - 0 1",                     // pawn on the last rank
		"k7/8/8/8/8/8/8/R6K w - - 0 1",                     // Black, not to move, in check
		"QQQQQQQQ/QQQQQQQQ/QQQQQQQQ/8/8/8/8/K6k w - - 0 1", // 24 queens
	} {
		t.Run(fen, func(t *testing.T) {
			_, err := ParseFEN(fen)
			var fe *FENError
			if !errors.As(err, &fe) {
				t.Fatalf("ParseFEN(%q) error = %v, want a *FENError", fen, err)
			}
		})
	}
}

func TestParseUCI(t *testing.T) {
	p := mustFEN(t, "r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1")
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"e1g1", true}, {"e1c1", true}, {"b7a8q", true}, {"b7a8n", true}, {"b7b8r", true},
		{"b7a8", false},  // a promotion must name its piece
		{"b7a8Q", false}, // canonical UCI is lowercase
		{"b7a8k", false}, {"e1e3", false}, {"e1h1", false}, {"", false}, {"e1g1x", false}, {"i1g1", false},
	} {
		_, err := p.ParseUCI(tc.in)
		if got := err == nil; got != tc.ok {
			t.Errorf("ParseUCI(%q) error = %v, want ok=%v", tc.in, err, tc.ok)
		}
		if m, err := p.ParseUCI(tc.in); err == nil && m.UCI() != tc.in {
			t.Errorf("ParseUCI(%q).UCI() = %q", tc.in, m.UCI())
		}
	}
}

// slowLegal is the obvious definition: play the move and see whether the
// mover's king is attacked.
func slowLegal(p *Position, m Move) bool {
	q := p.Play(m)
	return !q.Attacked(q.KingSquare(p.side), q.side)
}

// TestRandomPlayouts plays random games from the perft positions and checks,
// at every position, the pin-aware legality test against slowLegal, the
// incremental key against a full recomputation, and the capture generator
// against the full generator.
func TestRandomPlayouts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	games := 300
	if testing.Short() {
		games = 100
	}
	for g := 0; g < games; g++ {
		p := mustFEN(t, perftCases[g%len(perftCases)].fen)
		for ply := 0; ply < 200; ply++ {
			var ml, caps MoveList
			p.GenerateMoves(&ml)
			p.GenerateCaptures(&caps)
			var legal []Move
			for _, m := range ml.Slice() {
				fast, slow := p.IsLegal(m), slowLegal(&p, m)
				if fast != slow {
					t.Fatalf("%s: IsLegal(%s) = %v, want %v", p.FEN(), m, fast, slow)
				}
				if fast {
					legal = append(legal, m)
				}
			}
			nCaps := 0
			for _, m := range ml.Slice() {
				if m.IsCapture() || m.Promotion() != NoPieceType {
					nCaps++
				}
			}
			if nCaps != caps.N {
				t.Fatalf("%s: %d captures and promotions generated, want %d", p.FEN(), caps.N, nCaps)
			}
			if k := p.computeKey(); k != p.key {
				t.Fatalf("%s: incremental key %x, want %x", p.FEN(), p.key, k)
			}
			if len(legal) == 0 || p.InsufficientMaterial() {
				break
			}
			p = p.Play(legal[rng.IntN(len(legal))])
		}
	}
}

// TestRepetitionKey checks the identity chess.js uses for repetitions
// (PROTOCOL.md section 4): the en-passant square counts whenever an enemy
// pawn stands beside the pawn that moved two squares, even when taking is
// illegal, and not otherwise.
func TestRepetitionKey(t *testing.T) {
	play := func(fen string, moves ...string) Position {
		p := mustFEN(t, fen)
		for _, s := range moves {
			m, err := p.ParseUCI(s)
			if err != nil {
				t.Fatal(err)
			}
			p = p.Play(m)
		}
		return p
	}
	tests := []struct {
		name  string
		fen   string
		moves []string
		other string // a FEN to compare with
		same  bool
	}{
		{"no neighbour: no en-passant square", StartFEN, []string{"e2e4"},
			"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", true},
		{"neighbour pawn: the square counts", "4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1", []string{"e2e4"},
			"4k3/8/8/8/3pP3/8/8/4K3 b - - 0 1", false},
		{"neighbour pawn: same as the FEN with it", "4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1", []string{"e2e4"},
			"4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1", true},
		// dxe3 would open the fourth rank from the rook on h4 to the king on
		// a4, yet chess.js still hashes the square.
		{"illegal capture still counts", "8/8/8/8/k2p3R/8/4P3/4K3 w - - 0 1", []string{"e2e4"},
			"8/8/8/8/k2pP2R/8/8/4K3 b - - 0 1", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := play(tc.fen, tc.moves...)
			q := mustFEN(t, tc.other)
			if got := p.Key() == q.Key(); got != tc.same {
				t.Errorf("same key = %v, want %v (%s / %s)", got, tc.same, p.FEN(), q.FEN())
			}
		})
	}
}

func TestInsufficientMaterial(t *testing.T) {
	tests := []struct {
		fen  string
		want bool
	}{
		{"8/8/8/8/8/8/8/K6k w - - 0 1", true},
		{"8/8/8/8/8/8/8/KB5k w - - 0 1", true},
		{"8/8/8/8/8/8/8/KN5k w - - 0 1", true},
		{"8/8/8/8/8/8/8/KNN4k w - - 0 1", false},
		{"8/8/8/8/8/8/8/KB4bk w - - 0 1", false}, // b1 and g1: opposite colours
		{"8/8/8/8/8/8/8/KB3b1k w - - 0 1", true}, // b1 and f1: both light
		{"8/8/8/8/8/B7/8/KB3b1k w - - 0 1", false},
		{"7k/8/8/8/8/8/8/KR6 w - - 0 1", false},
		{"8/8/8/8/8/8/P7/K6k w - - 0 1", false},
	}
	for _, tc := range tests {
		p := mustFEN(t, tc.fen)
		if got := p.InsufficientMaterial(); got != tc.want {
			t.Errorf("%s: InsufficientMaterial() = %v, want %v", tc.fen, got, tc.want)
		}
	}
}

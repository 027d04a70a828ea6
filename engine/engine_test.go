package engine

import (
	"errors"
	"testing"
	"time"

	"vesper/engine/board"
	"vesper/engine/search"
	"vesper/internal/testkit"
)

func TestBestChessMove(t *testing.T) {
	tests := []struct {
		name  string
		fen   string
		moves []string
		want  string
	}{
		{"mate in one", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", nil, "a1a8"},
		{"after moves", "", []string{"f2f3", "e7e5", "g2g4"}, "d8h4"},
		{"promotes with a letter", "8/P6k/8/8/8/8/8/K7 w - - 0 1", nil, "a7a8q"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := BestChessMove(tc.fen, tc.moves, Limits{Nodes: 20_000})
			if err != nil || got != tc.want {
				t.Errorf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestBestChessMoveErrors(t *testing.T) {
	tests := []struct {
		name  string
		fen   string
		moves []string
		over  bool
	}{
		{"bad FEN", "not a fen", nil, false},
		{"illegal move", "", []string{"e2e5"}, false},
		{"SAN is not UCI", "", []string{"e4"}, false},
		{"checkmate", "", []string{"f2f3", "e7e5", "g2g4", "d8h4"}, true},
		{"move after checkmate", "", []string{"f2f3", "e7e5", "g2g4", "d8h4", "a2a3"}, false},
		{"threefold", "", []string{"g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"}, true},
		{"threefold then more", "", []string{"g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8", "e2e4"}, true},
		{"stalemate", "k7/8/1Q6/8/8/8/8/7K b - - 0 1", nil, true},
		{"insufficient material", "8/8/8/8/8/8/8/K6k w - - 0 1", nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := BestChessMove(tc.fen, tc.moves, Limits{Nodes: 1000})
			if err == nil {
				t.Fatalf("got %q, want an error", got)
			}
			if errors.Is(err, ErrGameOver) != tc.over {
				t.Errorf("error %v, want game over = %v", err, tc.over)
			}
		})
	}
}

func TestBestChessMoveDeterministic(t *testing.T) {
	moves := []string{"e2e4", "c7c5", "g1f3", "d7d6", "d2d4", "c5d4", "f3d4", "g8f6", "b1c3", "a7a6"}
	lim := Limits{Nodes: 40_000}
	a, err1 := BestChessMove("", moves, lim)
	b, err2 := BestChessMove("", moves, lim)
	if err1 != nil || err2 != nil || a != b {
		t.Errorf("first %q (%v), second %q (%v)", a, err1, b, err2)
	}
}

// TestBeatsRandomPlay is a smoke test of the evaluation's signs: against
// a random mover the engine must win, whichever colour it has.
func TestBeatsRandomPlay(t *testing.T) {
	if testing.Short() {
		t.Skip("plays two games")
	}
	for engineSide := board.White; engineSide <= board.Black; engineSide++ {
		var moves []string
		p, _ := board.ParseFEN(board.StartFEN)
		seed := uint64(12345)
		for ply := 0; ; ply++ {
			if ply > 400 {
				t.Fatalf("engine as %d: no result after 400 plies", engineSide)
			}
			var m string
			if p.Side() == engineSide {
				var err error
				m, err = BestChessMove("", moves, Limits{Nodes: 3000})
				if errors.Is(err, ErrGameOver) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			} else {
				legal := p.LegalMoves()
				if len(legal) == 0 {
					break
				}
				seed = seed*6364136223846793005 + 1442695040888963407
				m = legal[(seed>>33)%uint64(len(legal))].UCI()
			}
			mv, err := p.ParseUCI(m)
			if err != nil {
				t.Fatal(err)
			}
			p = p.Play(mv)
			moves = append(moves, m)
			if g, err := search.NewGame("", moves); err != nil || g.Over() != "" {
				break
			}
		}
		if !p.InCheck() || p.Side() == engineSide || len(p.LegalMoves()) > 0 {
			t.Errorf("engine as %d: game ended without mate by the engine after %d plies: %s", engineSide, len(moves), p.FEN())
		}
	}
}

func TestBestGomokuMove(t *testing.T) {
	got, err := BestGomokuMove([]string{"h8", "a1", "h9", "a2", "h10", "a3", "h11", "b1"}, Limits{})
	if err != nil || (got != "h7" && got != "h12") {
		t.Errorf("got %q, %v; want h7 or h12", got, err)
	}
	_, err = BestGomokuMove([]string{"a1", "a2", "b1", "b2", "c1", "c2", "d1", "d2", "e1"}, Limits{})
	if !errors.Is(err, ErrGameOver) {
		t.Errorf("error %v, want ErrGameOver", err)
	}
	if _, err := BestGomokuMove([]string{"h8", "h8"}, Limits{}); err == nil || errors.Is(err, ErrGameOver) {
		t.Errorf("error %v, want a bad-input error", err)
	}
}

func TestBestChessMoveTimeLimit(t *testing.T) {
	began := time.Now()
	m, err := BestChessMove("", nil, Limits{Time: 100 * time.Millisecond})
	if err != nil || len(m) != 4 {
		t.Fatalf("got %q, %v", m, err)
	}
	// Not a budget (the machine may be loaded, and the figure belongs to a
	// benchmark): a search that ignored its limit would run for minutes.
	if took := time.Since(began); took > testkit.Scale(30*time.Second) {
		t.Errorf("100 ms took %v", took)
	}
}

package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/match/chessjs"
)

func TestOpenings(t *testing.T) {
	seen := map[string]bool{}
	for _, o := range openings {
		if err := checkOpening(o); err != nil {
			t.Error(err)
		}
		key := strings.Join(o.moves, " ")
		if seen[key] {
			t.Errorf("%s: the line %q appears twice", o.name, key)
		}
		seen[key] = true
	}
	if got := len(openings); got != 20 {
		t.Errorf("got %d openings, want 20 (40 games play each with both colours)", got)
	}
}

func TestGreediest(t *testing.T) {
	tests := []struct {
		name string
		fen  string
		want []string
	}{
		{"queen over pawn", "4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1", []string{"e4d5"}},
		{"mate over queen", "6k1/5ppp/8/8/8/8/q7/1R4K1 w - - 0 1", []string{"b1b8"}},
		{"en passant counts as a pawn", "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", []string{"e5d6"}},
		{"promotion to a queen", "8/1P2k3/8/8/8/8/8/4K3 w - - 0 1", []string{"b7b8q"}},
		{"nothing to win: every move", "4k3/8/8/8/8/8/8/R3K3 w - - 0 1", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := chessjs.NewGameFromFEN(tt.fen)
			if err != nil {
				t.Fatal(err)
			}
			legal := g.LegalMoves()
			var got []string
			for _, m := range greediest(g, legal) {
				got = append(got, m.UCI())
			}
			want := tt.want
			if want == nil {
				for _, m := range legal {
					want = append(want, m.UCI())
				}
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}

func TestParseInfo(t *testing.T) {
	tests := []struct {
		line      string
		wantInfo  bool
		nodes, ms int64
	}{
		{"depth 6 seldepth 16 score cp 2 nodes 26881 nps 802000 time 33 pv b5c6 d7c6", true, 26881, 33},
		{"depth 1 currmove e2e4 currmovenumber 1", false, 0, 0},
		{"string nodes 5 time 7", false, 0, 0},
		{"nodes 10", false, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			var r reply
			parseInfo(strings.Fields(tt.line), &r)
			if r.hasInfo != tt.wantInfo || r.nodes != tt.nodes || r.searchMS != tt.ms {
				t.Errorf("got info=%v nodes=%d time=%d, want %v %d %d", r.hasInfo, r.nodes, r.searchMS, tt.wantInfo, tt.nodes, tt.ms)
			}
		})
	}
}

// The built-in movers play whole games through the same adjudication as
// engines; the same seed must give the same games.
func TestPlayGameBuiltins(t *testing.T) {
	// The margin is wall time: a move's few milliseconds of work can take
	// longer than 100 ms on a loaded machine, and an overrun would lose
	// the game. What the test checks is the games, so the margin is one no
	// builtin move reaches.
	cfg := config{movetime: 100 * time.Millisecond, margin: testkit.Scale(time.Minute), grace: time.Second, maxPlies: 300, forfeit: true}
	play := func() []gameResult {
		players := [2]player{
			&builtinMover{label: "greedy", seed: 7, greedy: true},
			&builtinMover{label: "random", seed: 7},
		}
		var stats [2]sideStats
		var out []gameResult
		for i := range 4 {
			res, inc, err := playGame(i, players, cfg, &stats)
			if err != nil {
				t.Fatal(err)
			}
			if len(inc) > 0 {
				t.Errorf("game %d: incidents %v", i, inc)
			}
			out = append(out, res)
		}
		return out
	}
	first, second := play(), play()
	for i, r := range first {
		if r.reason == "" || r.plies > cfg.maxPlies || len(r.pgn) != r.plies {
			t.Errorf("game %d: reason %q, %d plies, %d SAN moves", i, r.reason, r.plies, len(r.pgn))
		}
		if r.reason == endPlyCap && r.score != 0.5 {
			t.Errorf("game %d: the ply cap scored %v, want a draw", i, r.score)
		}
		if r.white != i%2 {
			t.Errorf("game %d: player %d had White, want %d", i, r.white, i%2)
		}
		if s := second[i]; s.reason != r.reason || !slices.Equal(s.pgn, r.pgn) {
			t.Errorf("game %d: the same seed gave different games", i)
		}
	}
}

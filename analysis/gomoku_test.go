package analysis

import (
	"testing"

	"vesper/match/gomoku"
)

// Hand-made gomoku games (PROTOCOL.md section 5: Black, the first player,
// moves first; five or more in a line wins). Tags and Best per ply; the
// plies not listed are unknown with no Best.
func TestGomokuGrades(t *testing.T) {
	type grade struct {
		tag  Tag
		best string
	}
	for _, tt := range []struct {
		name  string
		moves []string
		want  map[int]grade
	}{
		{
			// Black builds h8-i8-j8; White's 3.a3 lets Black make the open
			// four h8-k8, which no stone stops (a blunder: g8 was the
			// answer). White's 4.a4 is already lost (unknown). Black's 5.h9
			// misses the five at g8 (or l8); White's 5...a5 then makes five.
			name:  "allowed open four, missed five, five",
			moves: []string{"h8", "a1", "i8", "a2", "j8", "a3", "k8", "a4", "h9", "a5"},
			want: map[int]grade{
				6:  {TagBlunder, "g8"},
				9:  {TagBlunder, "g8"},
				10: {TagBest, ""},
			},
		},
		{
			// Black's four h8-k8 is closed at g8 by White's first stone:
			// l8 is the only move that does not lose at once, hence best.
			name:  "the only block",
			moves: []string{"h8", "g8", "i8", "a1", "j8", "a2", "k8", "l8"},
			want:  map[int]grade{8: {TagBest, ""}},
		},
		{
			// White ignores the same four: Black wins at l8.
			name:  "a four not blocked",
			moves: []string{"h8", "g8", "i8", "a1", "j8", "a2", "k8", "a3", "l8"},
			want:  map[int]grade{8: {TagBlunder, "l8"}, 9: {TagBest, ""}},
		},
		{
			// h8 i8 _ k8 is a broken three: j8 would make the open four
			// g8..l8, so White's 3.a3 is a blunder (j8 the answer). The
			// broken four h8 i8 _ k8 l8 threatens five at j8 too, which
			// White's 4.a15 ignores.
			name:  "broken three, broken four",
			moves: []string{"h8", "a1", "i8", "a2", "k8", "a3", "l8", "a15"},
			want:  map[int]grade{6: {TagBlunder, "j8"}, 8: {TagBlunder, "j8"}},
		},
		{
			// Quiet moves far from any threat: nothing exact to say.
			name:  "quiet",
			moves: []string{"h8", "a1", "o15", "b2"},
			want:  map[int]grade{},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g, err := Analyse(t.Context(), finished(t, "gomoku", tt.moves), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(g.Moves) != len(tt.moves) || g.Engine != gomokuEngine {
				t.Fatalf("%d moves by %+v", len(g.Moves), g.Engine)
			}
			for _, m := range g.Moves {
				want, ok := tt.want[m.Ply]
				if !ok {
					want = grade{TagUnknown, ""}
				}
				if m.Tag != want.tag || m.Best != want.best {
					t.Errorf("ply %d %s: %s best %q, want %s best %q", m.Ply, m.Move, m.Tag, m.Best, want.tag, want.best)
				}
				if side := stoneSide(uint8((m.Ply+1)%2 + 1)); m.Side != side || (m.Ply == 1 && side != "black") {
					t.Errorf("ply %d side %s", m.Ply, m.Side)
				}
			}
			total := 0
			for _, p := range g.Players {
				for _, n := range p.Counts {
					total += n
				}
			}
			if total != len(tt.moves) {
				t.Errorf("counts sum to %d, want %d", total, len(tt.moves))
			}
		})
	}
}

// TestGomokuOverline: freestyle, so a stone that makes six makes "five".
func TestGomokuOverline(t *testing.T) {
	var b board
	for _, s := range []string{"a8", "b8", "c8", "e8", "f8"} {
		p, err := gomoku.ParsePoint(s)
		if err != nil {
			t.Fatal(err)
		}
		b[p.Col][p.Row] = 1
	}
	f := b.fives(1)
	if len(f) != 1 || f[0].String() != "d8" {
		t.Errorf("fives %v, want [d8]", f)
	}
	if len(b.fives(2)) != 0 {
		t.Error("white has fives on a board without white stones")
	}
}

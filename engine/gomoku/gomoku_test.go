package gomoku

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParsePoint(t *testing.T) {
	tests := []struct {
		in   string
		x, y int
		ok   bool
	}{
		{"h8", 7, 7, true}, {"a1", 0, 0, true}, {"O15", 14, 14, true}, {"a10", 0, 9, true}, {"B9", 1, 8, true},
		{"h08", 0, 0, false}, {"p1", 0, 0, false}, {"a16", 0, 0, false}, {"a0", 0, 0, false},
		{" h8", 0, 0, false}, {"h8 ", 0, 0, false}, {"", 0, 0, false}, {"h", 0, 0, false}, {"10", 0, 0, false},
		{"a1x", 0, 0, false}, {"a20", 0, 0, false},
	}
	for _, tc := range tests {
		x, y, err := ParsePoint(tc.in)
		if (err == nil) != tc.ok || (tc.ok && (x != tc.x || y != tc.y)) {
			t.Errorf("ParsePoint(%q) = %d, %d, %v; want %d, %d, ok=%v", tc.in, x, y, err, tc.x, tc.y, tc.ok)
		}
		if tc.ok && PointString(x, y) != strings.ToLower(tc.in) {
			t.Errorf("PointString(%d, %d) = %q", x, y, PointString(x, y))
		}
	}
}

// interleave makes a legal move list from the first player's points and
// the second player's (the first list may be one longer).
func interleave(first, second []string) []string {
	var out []string
	for i := range first {
		out = append(out, first[i])
		if i < len(second) {
			out = append(out, second[i])
		}
	}
	return out
}

func TestWinsInOne(t *testing.T) {
	tests := []struct {
		name          string
		first, second []string
		want          []string
	}{
		{"open four", []string{"d4", "e4", "f4", "g4"}, []string{"d5", "e6", "f7"}, []string{"c4", "h4"}},
		{"closed four", []string{"d4", "e4", "f4", "g4"}, []string{"c4", "e6", "f7"}, []string{"h4"}},
		{"split four", []string{"d4", "e4", "g4", "h4"}, []string{"d5", "e6", "f7"}, []string{"f4"}},
		{"diagonal at the edge", []string{"a1", "b2", "c3", "d4"}, []string{"h8", "h9", "h10"}, []string{"e5"}},
		// The second player wins rather than blocking the first's four.
		{"second player", []string{"a1", "h2", "h3", "h4", "h5"}, []string{"c3", "d3", "e3", "f3"}, []string{"b3", "g3"}},
		// Completing one's own five comes before blocking a four.
		{"win before block", []string{"b2", "c2", "d2", "e2"}, []string{"b9", "c9", "d9", "e9"}, []string{"a2", "f2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			moves := interleave(tc.first, tc.second)
			got, err := Best(moves, Limits{Depth: 2})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(tc.want, got) {
				t.Errorf("played %s, want one of %v", got, tc.want)
			}
		})
	}
}

func TestBlocks(t *testing.T) {
	tests := []struct {
		name          string
		first, second []string
		want          []string
	}{
		// The second player to move must stop the first's four.
		{"closed four", []string{"d4", "e4", "f4", "g4"}, []string{"c4", "k10", "l12"}, []string{"h4"}},
		{"split four", []string{"d4", "e4", "g4", "h4"}, []string{"a1", "k10", "l12"}, []string{"f4"}},
		{"vertical four", []string{"j5", "j6", "j7", "j8"}, []string{"j9", "a15", "b15"}, []string{"j4"}},
		// Against an open four only one end can be taken.
		{"open four", []string{"d4", "e4", "f4", "g4"}, []string{"a1", "a15", "o1"}, []string{"c4", "h4"}},
		// An open three must be answered at one of its ends (or the gap
		// points further out that also stop a straight four).
		{"open three", []string{"e5", "f5", "g5"}, []string{"a1", "a15"}, []string{"d5", "h5", "c5", "i5"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			moves := interleave(tc.first, tc.second)
			got, err := Best(moves, Limits{Depth: 4})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(tc.want, got) {
				t.Errorf("played %s, want one of %v", got, tc.want)
			}
		})
	}
}

// TestFindsVCF: the first player wins only by a chain of fours: h9 (a
// four on row 9, blocked at g9), then h8, a four on row 8 and a four on
// column h at once.
func TestFindsVCF(t *testing.T) {
	first := []string{"e8", "f8", "g8", "i9", "j9", "k9", "h10", "h11"}
	second := []string{"d8", "l9", "h12", "a15", "c13", "o1", "m3", "a1"}
	moves := interleave(first, second)
	got, err := Best(moves, Limits{Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := fromMoves(moves)
	x, y, _ := ParsePoint(got)
	p.play(at(x, y))
	s := &searcher{pos: p, nodeLimit: 1 << 40}
	// Whatever the second player answers, the first still wins by fours.
	for _, i := range geo.points {
		if p.cell[i] != empty || p.near[i] == 0 {
			continue
		}
		p.play(i)
		s.vcfNodes = 0
		_, ok := s.vcf(p.side, p.fivePointsThrough(i, other(p.side), nil), vcfDepth)
		p.undo(i)
		if !ok {
			t.Fatalf("played %s, but after %s there is no win by fours", got, pointName(i))
		}
	}
}

// noQuickLoss reports whether, after the engine's move, the opponent has
// neither a five nor, unless it must first block a four, a move that makes
// an open four or two fours.
func noQuickLoss(moves []string, reply string) bool {
	p, err := fromMoves(append(slices.Clone(moves), reply))
	if err != nil {
		return false
	}
	s := &searcher{pos: p}
	a := s.analyze(0, 0)
	return a.ownFive < 0 && (len(a.oppFives) > 0 || a.openFour < 0)
}

func TestSelfPlay(t *testing.T) {
	openings := [][]string{nil, {"h8", "i9"}, {"a1"}, {"h8", "h9", "g8", "f8"}}
	if testing.Short() {
		openings = openings[:2]
	}
	for _, opening := range openings {
		t.Run(fmt.Sprint(opening), func(t *testing.T) {
			moves := slices.Clone(opening)
			for len(moves) < Size*Size {
				m, err := Best(moves, Limits{Depth: 2, Nodes: 5000})
				var over *OverError
				if errors.As(err, &over) {
					if over.Reason != "five_in_a_row" {
						t.Errorf("ended by %s", over.Reason)
					}
					return
				}
				if err != nil {
					t.Fatalf("after %v: %v", moves, err)
				}
				moves = append(moves, m)
				if _, err := fromMoves(moves); err != nil {
					t.Fatalf("%v: %v", moves, err)
				}
			}
		})
	}
}

func TestNeverLosesToAThreatItCouldStop(t *testing.T) {
	// Play the engine against itself from several openings; whenever the
	// side to move had a defence against a quick loss, its move must be one.
	for _, opening := range [][]string{{"h8", "h9", "i8"}, {"g7", "h8", "i9", "g8"}} {
		moves := slices.Clone(opening)
		for len(moves) < 40 {
			m, err := Best(moves, Limits{Depth: 3, Nodes: 20000})
			if err != nil {
				break
			}
			p, _ := fromMoves(moves)
			s := &searcher{pos: p}
			a := s.analyze(0, 0)
			if a.ownFive < 0 {
				defendable := false
				for _, c := range a.cands {
					if noQuickLoss(moves, pointName(c.point)) {
						defendable = true
						break
					}
				}
				if defendable && !noQuickLoss(moves, m) {
					t.Errorf("after %v played %s, allowing a quick loss", moves, m)
				}
			}
			moves = append(moves, m)
		}
	}
}

func TestDeterministic(t *testing.T) {
	moves := []string{"h8", "i9", "g7", "j10", "h7"}
	a, err1 := Best(moves, Limits{Nodes: 50000})
	b, err2 := Best(moves, Limits{Nodes: 50000})
	if err1 != nil || err2 != nil || a != b {
		t.Errorf("got %s (%v) and %s (%v)", a, err1, b, err2)
	}
}

func TestBadInput(t *testing.T) {
	five := interleave([]string{"a1", "b1", "c1", "d1", "e1"}, []string{"a2", "b2", "c2", "d2"})
	tests := []struct {
		name  string
		moves []string
		over  bool
	}{
		{"bad point", []string{"h8", "z9"}, false},
		{"padded", []string{"h08"}, false},
		{"occupied", []string{"h8", "H8"}, false},
		{"over", five, true},
		{"move after the end", append(slices.Clone(five), "o15"), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Best(tc.moves, Limits{})
			var over *OverError
			if err == nil || errors.As(err, &over) != tc.over {
				t.Errorf("error %v, want over=%v", err, tc.over)
			}
		})
	}
}

func TestEmptyBoardOpensInTheCentre(t *testing.T) {
	if got, err := Best(nil, Limits{}); got != "h8" || err != nil {
		t.Errorf("got %s, %v", got, err)
	}
}

// BenchmarkMove reports the time and search nodes of one move with the
// default limits (depth 6) in a quiet opening, where no rule or VCF
// decides and the whole search runs.
func BenchmarkMove(b *testing.B) {
	moves := []string{"h8", "i9", "g9", "h10", "g8", "g10"}
	var nodes int64
	for b.Loop() {
		p, err := fromMoves(moves)
		if err != nil {
			b.Fatal(err)
		}
		s := &searcher{pos: p, nodeLimit: 100_000, start: time.Now()}
		s.choose(6)
		nodes += s.nodes
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

// FuzzBest: any move list gives a move on an empty point or an error.
func FuzzBest(f *testing.F) {
	f.Add("h8,i9,g7")
	f.Add("a1,a2,b1,b2,c1,c2,d1,d2,e1")
	f.Add("h08")
	f.Fuzz(func(t *testing.T, list string) {
		moves := strings.Split(list, ",")
		got, err := Best(moves, Limits{Depth: 1, Nodes: 200})
		if err != nil {
			return
		}
		if _, err := fromMoves(append(moves, got)); err != nil {
			t.Fatalf("after %q played %s: %v", list, got, err)
		}
	})
}

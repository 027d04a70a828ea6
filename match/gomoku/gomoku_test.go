package gomoku

import "testing"

func TestSection5Points(t *testing.T) {
	cases := map[string]string{"h8": "h8", "H8": "h8", "a1": "a1", "O15": "o15", "j10": "j10"}
	for in, want := range cases {
		p, err := ParsePoint(in)
		if err != nil || p.String() != want {
			t.Errorf("ParsePoint(%q) = %v, %v; want %s", in, p, err, want)
		}
	}
	for _, bad := range []string{"h08", "h0", "p1", "a16", "h 8", " h8", "h8 ", "", "h", "aa", "h-8", "a１"} {
		if _, err := ParsePoint(bad); err == nil {
			t.Errorf("ParsePoint(%q) accepted", bad)
		}
	}
}

func TestSection5Occupied(t *testing.T) {
	g := NewGame()
	if _, err := g.Move("h8"); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Move("H8"); err != ErrOccupied {
		t.Fatalf("got %v, want ErrOccupied", err)
	}
}

func play(t *testing.T, moves ...string) *Game {
	t.Helper()
	g := NewGame()
	for _, m := range moves {
		if _, err := g.Move(m); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
	}
	return g
}

func TestSection5FiveInARow(t *testing.T) {
	cases := []struct {
		name  string
		moves []string
		win   uint8
	}{
		{"row", []string{"a1", "a2", "b1", "b2", "c1", "c2", "d1", "d2", "e1"}, 1},
		{"column", []string{"a1", "b1", "a2", "b2", "a3", "b3", "a4", "b4", "o15", "b5"}, 2},
		{"diagonal", []string{"a1", "o1", "b2", "o2", "c3", "o3", "d4", "o5", "e5"}, 1},
		{"anti-diagonal", []string{"e1", "o1", "d2", "o2", "c3", "o3", "b4", "o5", "a5"}, 1},
		// Freestyle: an overline of six wins too.
		{"overline", []string{"a1", "a2", "b1", "b2", "c1", "c2", "e1", "e2", "f1", "f2", "d1"}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := play(t, c.moves...)
			over, w, r := g.Outcome()
			if !over || w != c.win || r != ReasonFive {
				t.Fatalf("got %v %d %s", over, w, r)
			}
		})
	}
	g := play(t, "a1", "a2", "b1", "b2", "c1", "c2", "d1")
	if over, _, _ := g.Outcome(); over {
		t.Fatal("four is not five")
	}
}

func TestSection5BoardFull(t *testing.T) {
	// Colour (c+2r)/2 mod 2 has no line of five in any direction, and
	// gives 113 stones to the first player and 112 to the second.
	g := NewGame()
	var firsts, seconds []Point
	for r := 0; r < Size; r++ {
		for c := 0; c < Size; c++ {
			if ((c+2*r)/2)%2 == 0 {
				firsts = append(firsts, Point{c, r})
			} else {
				seconds = append(seconds, Point{c, r})
			}
		}
	}
	if len(firsts) != len(seconds)+1 {
		t.Fatalf("pattern gives %d/%d stones", len(firsts), len(seconds))
	}
	for i := 0; i < len(firsts); i++ {
		if _, err := g.Move(firsts[i].String()); err != nil {
			t.Fatal(err)
		}
		if over, _, _ := g.Outcome(); over && i < len(seconds) {
			t.Fatalf("pattern made a line at %d", i)
		}
		if i < len(seconds) {
			if _, err := g.Move(seconds[i].String()); err != nil {
				t.Fatal(err)
			}
		}
	}
	over, w, r := g.Outcome()
	if !over || w != 0 || r != ReasonBoardFull {
		t.Fatalf("got %v %d %s", over, w, r)
	}
}

func FuzzParsePoint(f *testing.F) {
	for _, s := range []string{"h8", "O15", "h08", "p1", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePoint(s)
		if err != nil {
			return
		}
		back, err := ParsePoint(p.String())
		if err != nil || back != p {
			t.Fatalf("%q -> %v -> %v", s, p, back)
		}
	})
}

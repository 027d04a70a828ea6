package board

import "testing"

// FuzzParseFEN: any string is refused with an error or gives a position
// whose moves can be generated, played and printed without a panic.
func FuzzParseFEN(f *testing.F) {
	for _, tc := range perftCases {
		f.Add(tc.fen)
	}
	f.Add("8/8/8/8/8/8/8/K6k w")
	f.Add("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3")
	f.Fuzz(func(t *testing.T, fen string) {
		p, err := ParseFEN(fen)
		if err != nil {
			return
		}
		for _, m := range p.LegalMoves() {
			q := p.Play(m)
			_ = q.FEN()
			if q.computeKey() != q.Key() {
				t.Fatalf("%s after %s: key mismatch", fen, m)
			}
		}
		q, err := ParseFEN(p.FEN())
		if err != nil || q.FEN() != p.FEN() {
			t.Fatalf("%q prints %q, which reads back as %q (%v)", fen, p.FEN(), q.FEN(), err)
		}
	})
}

// FuzzParseUCI: any move string in the start position and Kiwipete is a
// legal move that prints back the same, or an error.
func FuzzParseUCI(f *testing.F) {
	for _, s := range []string{"e2e4", "e1g1", "a7a8q", "e7e8", "h2h1N", "", "zzzz", "e2e4 "} {
		f.Add(s)
	}
	start, _ := ParseFEN(StartFEN)
	kiwi, _ := ParseFEN(perftCases[1].fen)
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range []Position{start, kiwi} {
			m, err := p.ParseUCI(s)
			if err == nil && m.UCI() != s {
				t.Fatalf("ParseUCI(%q) = %s", s, m.UCI())
			}
		}
	})
}
